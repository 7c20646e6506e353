import type { Picture } from '../decode/types';
import { checkPicture } from './convert';

/** BT.601 luma in limited range, x256: the scale of I420's Y plane, which every grey copy of RGB keeps to. */
const LUMA = { offset: 16, r: 66, g: 129, b: 25 } as const;

/** One RGB pixel's limited-range BT.601 luma (0-255), comparable with the Y plane of I420. */
export function rgbLuma(r: number, g: number, b: number): number {
  return LUMA.offset + ((LUMA.r * r + LUMA.g * g + LUMA.b * b + 128) >> 8);
}

/** A region of a picture, in pixels (right and bottom exclusive). */
export interface GrayRegion {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * A small grey-scale copy of a picture, or of a region of it (cell-averaged luma): the change gate
 * compares two samples on these instead of on whole frames, and the tracker tells two faces in one
 * place apart by them. Plain JS; an I420 picture's Y plane is read as is, RGB(A) pixels give their
 * BT.601 luma, so every format gives comparable values.
 */
export function grayThumbnail(p: Picture, width = 32, height = 24, region?: GrayRegion): Uint8Array {
  checkPicture(p);
  if (!(width >= 1 && height >= 1 && Number.isInteger(width) && Number.isInteger(height))) {
    throw new RangeError(`thumbnail size ${width}x${height} is not a positive whole size`);
  }
  const left = region ? Math.min(p.width - 1, Math.max(0, Math.floor(region.left))) : 0;
  const top = region ? Math.min(p.height - 1, Math.max(0, Math.floor(region.top))) : 0;
  const rw = region ? Math.max(1, Math.min(p.width, Math.ceil(region.right)) - left) : p.width;
  const rh = region ? Math.max(1, Math.min(p.height, Math.ceil(region.bottom)) - top) : p.height;
  const out = new Uint8Array(width * height);
  const d = p.data;
  // Every pixel of a large cell adds little: at most about 8x8 of them are read (a 640x480 picture
  // into 32x24 cells reads every other row and column), which keeps a sample's gate check cheap.
  const stepX = Math.max(1, Math.floor(rw / width / 8));
  const stepY = Math.max(1, Math.floor(rh / height / 8));
  for (let ty = 0; ty < height; ty++) {
    const y0 = top + Math.floor((ty * rh) / height);
    const y1 = Math.max(y0 + 1, top + Math.floor(((ty + 1) * rh) / height));
    for (let tx = 0; tx < width; tx++) {
      const x0 = left + Math.floor((tx * rw) / width);
      const x1 = Math.max(x0 + 1, left + Math.floor(((tx + 1) * rw) / width));
      let sum = 0;
      let n = 0;
      if (p.format === 'i420') {
        for (let y = y0; y < y1; y += stepY) {
          const row = y * p.width;
          for (let x = x0; x < x1; x += stepX, n++) sum += d[row + x];
        }
      } else {
        // Luma is linear, so the channels are summed first and weighted once per cell.
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
