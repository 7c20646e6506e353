import type { Picture } from '../decode/types';

/** Interleaved pixels as sharp's raw input takes them. */
export interface RawPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** Byte offsets of the U and V planes of a tightly packed I420 picture, and the chroma width. */
export function i420Layout(width: number, height: number): { u: number; v: number; chromaWidth: number; size: number } {
  const chromaWidth = (width + 1) >> 1;
  const chromaSize = chromaWidth * ((height + 1) >> 1);
  return { u: width * height, v: width * height + chromaSize, chromaWidth, size: width * height + 2 * chromaSize };
}

/** Checks that a picture's buffer holds what its size and format promise. */
export function checkPicture(p: Picture): void {
  if (!(p.width > 0 && p.height > 0 && Number.isInteger(p.width) && Number.isInteger(p.height))) {
    throw new RangeError(`picture size ${p.width}x${p.height} is not a positive whole size`);
  }
  const need = p.format === 'i420' ? i420Layout(p.width, p.height).size : p.width * p.height * 4;
  if (p.data.length < need) throw new RangeError(`picture data has ${p.data.length} bytes, ${p.format} ${p.width}x${p.height} needs ${need}`);
}

/**
 * Converts a region of a picture to interleaved RGB (3 channels) or RGBA (4), as sharp's raw input
 * wants it. I420 uses BT.601 limited range, what WebRTC's encoders produce.
 */
export function toRaw(p: Picture, channels: 3 | 4 = 3, region?: { left: number; top: number; width: number; height: number }): RawPixels {
  checkPicture(p);
  const { left = 0, top = 0, width = p.width, height = p.height } = region ?? {};
  const out = new Uint8Array(width * height * channels);
  if (p.format === 'rgba') {
    for (let y = 0; y < height; y++) {
      const row = ((top + y) * p.width + left) * 4;
      if (channels === 4) {
        out.set(p.data.subarray(row, row + width * 4), y * width * 4);
      } else {
        for (let x = 0, o = y * width * 3; x < width; x++, o += 3) {
          out[o] = p.data[row + x * 4];
          out[o + 1] = p.data[row + x * 4 + 1];
          out[o + 2] = p.data[row + x * 4 + 2];
        }
      }
    }
    return { data: out, width, height, channels };
  }
  const { u: uAt, v: vAt, chromaWidth } = i420Layout(p.width, p.height);
  const d = p.data;
  let o = 0;
  for (let y = 0; y < height; y++) {
    const sy = top + y;
    const yRow = sy * p.width;
    const cRow = (sy >> 1) * chromaWidth;
    for (let x = 0; x < width; x++) {
      const sx = left + x;
      const c = (d[yRow + sx] - 16) * 298;
      const u = d[uAt + cRow + (sx >> 1)] - 128;
      const v = d[vAt + cRow + (sx >> 1)] - 128;
      out[o] = clamp((c + 409 * v + 128) >> 8);
      out[o + 1] = clamp((c - 100 * u - 208 * v + 128) >> 8);
      out[o + 2] = clamp((c + 516 * u + 128) >> 8);
      if (channels === 4) out[o + 3] = 255;
      o += channels;
    }
  }
  return { data: out, width, height, channels };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/** A picture in RGBA (converted from I420 when needed). */
export function toRgba(p: Picture): Picture {
  if (p.format === 'rgba') return p;
  return { width: p.width, height: p.height, format: 'rgba', data: toRaw(p, 4).data, timestamp: p.timestamp };
}
