import type { Sharp } from 'sharp';
import { InputError } from '../errors';
import type { Picture } from '../decode/types';
import type { Location } from '../vision/types';
import { rawView, toRaw, type RawPixels } from './convert';
import { drawOutlines, type Box } from './overlay';
import { pictureBackend, sharpLib } from './sharp';

/** JPEG options. */
export interface JpegOptions {
  /** 1-100 (default 80). */
  quality?: number;
}

const DEFAULT_QUALITY = 80;
const MAX_OUTPUT_SIDE = 4096;

function quality(options?: JpegOptions): number {
  const q = options?.quality ?? DEFAULT_QUALITY;
  if (!(Number.isInteger(q) && q >= 1 && q <= 100)) throw new InputError('quality', `quality must be a whole number from 1 to 100 (got ${q})`, '1-100');
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
      throw new InputError(`size.${side}`, `size.${side} must be a whole number from 1 to ${MAX_OUTPUT_SIDE} (got ${v})`, `1-${MAX_OUTPUT_SIDE}`);
    }
  }
  const left = clampInt(box.left, 0, p.width);
  const top = clampInt(box.top, 0, p.height);
  const right = clampInt(box.right, 0, p.width);
  const bottom = clampInt(box.bottom, 0, p.height);
  if (right - left < 1 || bottom - top < 1) {
    throw new InputError('box', `box ${JSON.stringify(box)} has no pixels inside the ${p.width}x${p.height} picture`, `inside 0,0-${p.width},${p.height}`);
  }
  const region = { left, top, width: right - left, height: bottom - top };
  const cropped = p.format === 'i420' ? fromRaw(toRaw(p, 3, region)) : fromRaw(rawView(p)).extract(region);
  return cropped.resize(size.width, size.height, { fit: 'fill' }).jpeg(jpegSettings(q)).toBuffer();
}

/** A JPEG of a picture with rectangles (and optional labels) drawn on it. Labels need sharp's native build (the wasm one has no fonts). */
export async function drawBoxes(p: Picture, boxes: readonly Box[], options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  const raw = toRaw(p);
  const labels = drawOutlines(raw, boxes, pictureBackend() === 'sharp-native');
  return withLabels(fromRaw(raw), labels).jpeg(jpegSettings(q)).toBuffer();
}

/**
 * Draws rectangles (and optional labels, native sharp only) on an encoded image; JPEG in gives JPEG
 * out, PNG gives PNG. Coordinates are the image's stored pixels (EXIF orientation is not applied).
 */
export async function drawBoxesOnImage(image: Buffer, boxes: readonly Box[], options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  let decoded: { data: Buffer; info: { format?: string; width: number; height: number; channels: number } };
  let format: string | undefined;
  try {
    format = (await sharpLib()(image).metadata()).format;
    decoded = await sharpLib()(image).raw().toBuffer({ resolveWithObject: true });
  } catch {
    throw new InputError('image', 'image could not be read (JPEG or PNG expected)', 'JPEG or PNG');
  }
  if (format !== 'jpeg' && format !== 'png') throw new InputError('image', `image is ${format ?? 'of an unknown format'}; JPEG or PNG expected`, 'JPEG or PNG');
  const { width, height, channels } = decoded.info;
  if (channels !== 3 && channels !== 4) {
    // Grey (1) or grey+alpha (2): widened to RGB(A) so coloured boxes can be drawn.
    const rgb = await sharpLib()(image).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    decoded = rgb;
  }
  const raw: RawPixels = { data: decoded.data, width, height, channels: decoded.info.channels === 4 ? 4 : 3 };
  const labels = drawOutlines(raw, boxes, pictureBackend() === 'sharp-native');
  const out = withLabels(fromRaw(raw), labels);
  return format === 'png' ? out.png().toBuffer() : out.jpeg(jpegSettings(q)).toBuffer();
}

function withLabels(image: Sharp, labels: { input: Buffer; left: number; top: number }[]): Sharp {
  return labels.length === 0 ? image : image.composite(labels);
}

function clampInt(v: number, lo: number, hi: number): number {
  const n = Math.round(Number.isFinite(v) ? v : lo);
  return n < lo ? lo : n > hi ? hi : n;
}
