import type { Sharp } from 'sharp';
import { InputError } from '../errors';
import type { Picture } from '../decode/types';
import type { Location } from '../vision/types';
import { rawView, toRaw, type RawPixels } from './convert';
import { drawOutlines, type Box } from './overlay';
import { pictureBackend, sharpLib } from './sharp';
import { Slots } from './slots';
import { checkImageBytes } from '../image/input';
import { imageDimensions } from '../image/dimensions';
import { IMAGE_LIMIT_TEXT, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from '../image/limits';

/** JPEG options. */
export interface JpegOptions {
  /** 1-100 (default 80). */
  quality?: number;
}

const DEFAULT_QUALITY = 80;
const MAX_OUTPUT_SIDE = 4096;

function quality(options?: JpegOptions): number {
  const q = options?.quality ?? DEFAULT_QUALITY;
  if (!(Number.isInteger(q) && q >= 1 && q <= 100)) throw new InputError('invalid_input', `quality must be a whole number from 1 to 100 (got ${q})`, { field: 'quality', limit: '1-100' });
  return q;
}

/**
 * sharp's JPEG settings. Its default optimises the Huffman tables, a second pass that took 2.5x the
 * time of the whole encode of a noisy 640x480 frame for a file 6% smaller: a watcher makes a
 * snapshot of every changed sample, so it skips that pass.
 */
function jpegSettings(q: number): { quality: number; optimiseCoding: false } {
  return { quality: q, optimiseCoding: false };
}

function fromRaw(raw: RawPixels): Sharp {
  return sharpLib()(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
}

/** A JPEG of a whole picture. */
export async function encodeJpeg(p: Picture, options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  return fromRaw(rawView(p)).jpeg(jpegSettings(q)).toBuffer();
}

/**
 * A JPEG of one region of a picture, scaled to `size` (stretched if the aspect ratios differ). The
 * region is clipped to the picture; of an I420 picture only its pixels are converted.
 */
export async function cropToJpeg(p: Picture, box: Location, size: { width: number; height: number }, options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  for (const side of ['width', 'height'] as const) {
    const v = size[side];
    if (!(Number.isInteger(v) && v >= 1 && v <= MAX_OUTPUT_SIDE)) {
      throw new InputError('invalid_input', `size.${side} must be a whole number from 1 to ${MAX_OUTPUT_SIDE} (got ${v})`, { field: `size.${side}`, limit: `1-${MAX_OUTPUT_SIDE}` });
    }
  }
  const left = clampInt(box.left, 0, p.width);
  const top = clampInt(box.top, 0, p.height);
  const right = clampInt(box.right, 0, p.width);
  const bottom = clampInt(box.bottom, 0, p.height);
  if (right - left < 1 || bottom - top < 1) {
    throw new InputError('invalid_input', `box ${JSON.stringify(box)} has no pixels inside the ${p.width}x${p.height} picture`, { field: 'box', limit: `inside 0,0-${p.width},${p.height}` });
  }
  const region = { left, top, width: right - left, height: bottom - top };
  const cropped = p.format === 'i420' ? fromRaw(toRaw(p, 3, region)) : fromRaw(rawView(p)).extract(region);
  return cropped.resize(size.width, size.height, { fit: 'fill' }).jpeg(jpegSettings(q)).toBuffer();
}

/**
 * A smaller copy of a JPEG, `width` pixels wide and its height in proportion (never enlarged). The
 * image is checked (format, size, pixel count) before it is decoded.
 */
export async function scaleJpeg(jpeg: Buffer, width: number, options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  if (!(Number.isInteger(width) && width >= 1 && width <= MAX_OUTPUT_SIDE)) {
    throw new InputError('invalid_input', `width must be a whole number from 1 to ${MAX_OUTPUT_SIDE} (got ${width})`, { field: 'width', limit: `1-${MAX_OUTPUT_SIDE}` });
  }
  const { mime } = checkImageBytes(jpeg, 'image');
  if (mime !== 'image/jpeg') throw new InputError('invalid_input', 'image must be a JPEG', { field: 'image', limit: 'JPEG' });
  try {
    return await sharpLib()(jpeg, { limitInputPixels: MAX_IMAGE_PIXELS }).resize({ width, withoutEnlargement: true }).jpeg(jpegSettings(q)).toBuffer();
  } catch {
    throw new InputError('invalid_input', 'image could not be decoded (a damaged JPEG)', { field: 'image', limit: 'JPEG' });
  }
}

/** A JPEG of a picture with rectangles (and optional labels) drawn on it. Labels need sharp's native build (the wasm one has no fonts). */
export async function drawBoxes(p: Picture, boxes: readonly Box[], options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  const raw = toRaw(p);
  const labels = drawOutlines(raw, boxes, pictureBackend() === 'sharp-native');
  return withLabels(fromRaw(raw), labels).jpeg(jpegSettings(q)).toBuffer();
}

/**
 * Largest picture box drawing decodes at full size: 12 megapixels (48 MB as RGBA). A larger image
 * (the input limit is MAX_IMAGE_PIXELS) is decoded shrunk to it, the boxes scaled alike.
 */
export const DRAW_MAX_PIXELS = 12_000_000;
/** Drawings decoded at once in the process: with DRAW_MAX_PIXELS, bounds their memory (others queue). */
export const DRAW_CONCURRENCY = 2;
/** Each step of shrinking a drawn picture that is still too large to send is at least this. */
const SHRINK_STEP = 0.9;
/** Steps of shrinking tried before giving up (each aims under the limit: one or two suffice). */
const MAX_SHRINK_STEPS = 6;
/** JPEG qualities tried, after the caller's, before the picture is shrunk. */
const FALLBACK_QUALITIES = [60, 45];

const drawSlots = new Slots(DRAW_CONCURRENCY);

/**
 * Draws rectangles (and optional labels, native sharp only) on an encoded image; JPEG in gives JPEG
 * out, PNG gives PNG. Coordinates are the image's stored pixels (EXIF orientation is not applied).
 * The image is checked (format, size, pixel count) before it is decoded; an image past
 * DRAW_MAX_PIXELS is drawn shrunk, and the result is kept under the service's 4 MiB (re-encoded
 * at a lower quality, then smaller, when needed), so it can be sent on.
 */
export async function drawBoxesOnImage(image: Buffer, boxes: readonly Box[], options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  const { mime } = checkImageBytes(image, 'image');
  const declared = imageDimensions(image, mime)!;
  const scale = Math.min(1, Math.sqrt(DRAW_MAX_PIXELS / (declared.width * declared.height)));
  return drawSlots.run(async () => {
    let decoded: { data: Buffer; info: { width: number; height: number; channels: number } };
    try {
      const decode = (): Sharp => {
        const input = sharpLib()(image, { limitInputPixels: MAX_IMAGE_PIXELS });
        return scale < 1 ? input.resize(Math.max(1, Math.floor(declared.width * scale)), Math.max(1, Math.floor(declared.height * scale)), { fit: 'fill' }) : input;
      };
      decoded = await decode().raw().toBuffer({ resolveWithObject: true });
      if (decoded.info.channels !== 3 && decoded.info.channels !== 4) {
        // Grey (1) or grey+alpha (2): widened to RGB(A) so coloured boxes can be drawn.
        decoded = await decode().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      }
    } catch {
      throw new InputError('invalid_input', 'image could not be decoded (a damaged JPEG or PNG)', { field: 'image', limit: 'JPEG or PNG' });
    }
    const { width, height } = decoded.info;
    const raw: RawPixels = { data: decoded.data, width, height, channels: decoded.info.channels === 4 ? 4 : 3 };
    const labels = drawOutlines(raw, scale < 1 ? boxes.map((b) => scaleBox(b, width / declared.width, height / declared.height)) : boxes, pictureBackend() === 'sharp-native');
    const encode = (picture: Sharp, jpegQuality: number): Promise<Buffer> => (mime === 'image/png' ? picture.png().toBuffer() : picture.jpeg(jpegSettings(jpegQuality)).toBuffer());
    const first = await encode(withLabels(fromRaw(raw), labels), q);
    if (first.length < MAX_IMAGE_BYTES) return first;
    return shrinkUnderLimit(await withLabels(fromRaw(raw), labels).raw().toBuffer({ resolveWithObject: true }), mime, q, first.length);
  });
}

/**
 * Re-encodes a drawn picture (raw, labels in) until it is under MAX_IMAGE_BYTES: a JPEG at lower
 * qualities first; then smaller, each step scaled by how far the last try was over the limit.
 */
async function shrinkUnderLimit(drawn: { data: Buffer; info: { width: number; height: number; channels: number } }, mime: string, q: number, size: number): Promise<Buffer> {
  const raw = { width: drawn.info.width, height: drawn.info.height, channels: drawn.info.channels as 3 | 4 };
  const encode = (factor: number, jpegQuality: number): Promise<Buffer> => {
    let picture = sharpLib()(drawn.data, { raw });
    if (factor < 1) picture = picture.resize(Math.max(1, Math.floor(raw.width * factor)), Math.max(1, Math.floor(raw.height * factor)), { fit: 'fill' });
    return mime === 'image/png' ? picture.png().toBuffer() : picture.jpeg(jpegSettings(jpegQuality)).toBuffer();
  };
  let last = size;
  let lowest = q;
  if (mime !== 'image/png') {
    for (const v of FALLBACK_QUALITIES.filter((f) => f < q)) {
      const out = await encode(1, v);
      if (out.length < MAX_IMAGE_BYTES) return out;
      [last, lowest] = [out.length, v];
    }
  }
  let factor = 1;
  for (let step = 0; step < MAX_SHRINK_STEPS; step++) {
    // Bytes go roughly with the pixel count: aim a tenth under the limit.
    factor *= Math.min(SHRINK_STEP, Math.sqrt((0.9 * MAX_IMAGE_BYTES) / last));
    const out = await encode(factor, lowest);
    if (out.length < MAX_IMAGE_BYTES) return out;
    last = out.length;
  }
  throw new InputError('invalid_input', `the image with its boxes could not be made ${IMAGE_LIMIT_TEXT}`, { field: 'image', limit: IMAGE_LIMIT_TEXT });
}

function scaleBox(box: Box, sx: number, sy: number): Box {
  const { left, top, right, bottom } = box.location ?? {};
  return { ...box, location: { left: left * sx, top: top * sy, right: right * sx, bottom: bottom * sy } };
}

function withLabels(image: Sharp, labels: { input: Buffer; left: number; top: number }[]): Sharp {
  return labels.length === 0 ? image : image.composite(labels);
}

function clampInt(v: number, lo: number, hi: number): number {
  const n = Math.round(Number.isFinite(v) ? v : lo);
  return n < lo ? lo : n > hi ? hi : n;
}
