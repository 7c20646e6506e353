import type { Sharp } from 'sharp';
import { InputError } from '../errors';
import type { Picture } from '../decode/types';
import type { Location } from '../vision/types';
import { toRaw, type RawPixels } from './convert';
import { boxesSvg, type Box } from './overlay';
import { sharpLib } from './sharp';

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

function fromRaw(raw: RawPixels): Sharp {
  return sharpLib()(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
}

/** A JPEG of a whole picture. */
export async function encodeJpeg(p: Picture, options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  return fromRaw(toRaw(p)).jpeg({ quality: q }).toBuffer();
}

/**
 * A JPEG of one region of a picture, scaled to `size` (stretched if the aspect ratios differ). The
 * region is clipped to the picture; only its pixels are converted from I420.
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
  const raw = toRaw(p, 3, { left, top, width: right - left, height: bottom - top });
  return fromRaw(raw).resize(size.width, size.height, { fit: 'fill' }).jpeg({ quality: q }).toBuffer();
}

/** A JPEG of a picture with rectangles (and optional labels) drawn on it. */
export async function drawBoxes(p: Picture, boxes: readonly Box[], options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  const svg = boxesSvg(p.width, p.height, boxes);
  return fromRaw(toRaw(p)).composite([{ input: svg, top: 0, left: 0 }]).jpeg({ quality: q }).toBuffer();
}

/**
 * Draws rectangles (and optional labels) on an encoded image; JPEG in gives JPEG out, PNG gives PNG.
 * Coordinates are the image's stored pixels (EXIF orientation is not applied).
 */
export async function drawBoxesOnImage(image: Buffer, boxes: readonly Box[], options?: JpegOptions): Promise<Buffer> {
  const q = quality(options);
  let meta: { format?: string; width?: number; height?: number };
  try {
    meta = await sharpLib()(image).metadata();
  } catch {
    throw new InputError('image', 'image could not be read (JPEG or PNG expected)', 'JPEG or PNG');
  }
  if ((meta.format !== 'jpeg' && meta.format !== 'png') || !meta.width || !meta.height) {
    throw new InputError('image', `image is ${meta.format ?? 'of an unknown format'}; JPEG or PNG expected`, 'JPEG or PNG');
  }
  const svg = boxesSvg(meta.width, meta.height, boxes);
  const out = sharpLib()(image).composite([{ input: svg, top: 0, left: 0 }]);
  return meta.format === 'png' ? out.png().toBuffer() : out.jpeg({ quality: q }).toBuffer();
}

function clampInt(v: number, lo: number, hi: number): number {
  const n = Math.round(Number.isFinite(v) ? v : lo);
  return n < lo ? lo : n > hi ? hi : n;
}
