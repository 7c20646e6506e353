import type { Picture } from '../decode/types';
import { checkPicture } from './convert';

/** BT.601 luma in limited range, x256: the scale of I420's Y plane, which every grey copy of RGB keeps to. */
const LUMA = { offset: 16, r: 66, g: 129, b: 25 } as const;

/** One RGB pixel's limited-range BT.601 luma (0-255), comparable with the Y plane of I420. */
export function rgbLuma(r: number, g: number, b: number): number {
  return LUMA.offset + ((LUMA.r * r + LUMA.g * g + LUMA.b * b + 128) >> 8);
}

/**
 * A small grey-scale copy of a picture (cell-averaged luma), the input of a change gate: two samples
 * are compared on these instead of on whole frames. Plain JS; an I420 picture's Y plane is read as is,
 * RGB(A) pixels give their BT.601 luma.
 */
export function grayThumbnail(p: Picture, width = 32, height = 24): Uint8Array {
  checkPicture(p);
  if (!(width >= 1 && height >= 1 && Number.isInteger(width) && Number.isInteger(height))) {
    throw new RangeError(`thumbnail size ${width}x${height} is not a positive whole size`);
  }
  const out = new Uint8Array(width * height);
  const d = p.data;
  // Every pixel of a large cell adds little: at most about 8x8 of them are read (a 640x480 picture
  // into 32x24 cells reads every other row and column), which keeps a sample's gate check cheap.
  const stepX = Math.max(1, Math.floor(p.width / width / 8));
  const stepY = Math.max(1, Math.floor(p.height / height / 8));
  for (let ty = 0; ty < height; ty++) {
    const y0 = Math.floor((ty * p.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * p.height) / height));
    for (let tx = 0; tx < width; tx++) {
      const x0 = Math.floor((tx * p.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * p.width) / width));
      let sum = 0;
      let n = 0;
      if (p.format === 'i420') {
        for (let y = y0; y < y1; y += stepY) {
          const row = y * p.width;
          for (let x = x0; x < x1; x += stepX, n++) sum += d[row + x];
        }
      } else {
        // BT.601 luma in limited range, so every format gives comparable values. Luma is linear, so
        // the channels are summed first and weighted once per cell.
        const step = p.format === 'rgb' ? 3 : 4;
        let r = 0;
        let g = 0;
        let b = 0;
        const stride = step * stepX;
        for (let y = y0; y < y1; y += stepY) {
          for (let i = (y * p.width + x0) * step, end = (y * p.width + x1) * step; i < end; i += stride, n++) {
            r += d[i];
            g += d[i + 1];
            b += d[i + 2];
          }
        }
        sum = LUMA.offset * n + (LUMA.r * r + LUMA.g * g + LUMA.b * b) / 256;
      }
      out[ty * width + tx] = Math.round(sum / n);
    }
  }
  return out;
}

/** Mean absolute difference of two equal-sized thumbnails (0-255): a change gate's measure. */
export function thumbnailDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new RangeError(`thumbnails differ in size (${a.length} and ${b.length} pixels)`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return a.length === 0 ? 0 : sum / a.length;
}
