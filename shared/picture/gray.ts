import type { Picture } from '../decode/types';
import { checkPicture } from './convert';

/**
 * A small grey-scale copy of a picture (box-averaged luma), the input of a change gate: two samples
 * are compared on these instead of on whole frames. Plain JS; an I420 picture's Y plane is read as is.
 */
export function grayThumbnail(p: Picture, width = 32, height = 24): Uint8Array {
  checkPicture(p);
  if (!(width >= 1 && height >= 1 && Number.isInteger(width) && Number.isInteger(height))) {
    throw new RangeError(`thumbnail size ${width}x${height} is not a positive whole size`);
  }
  const out = new Uint8Array(width * height);
  const d = p.data;
  for (let ty = 0; ty < height; ty++) {
    const y0 = Math.floor((ty * p.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * p.height) / height));
    for (let tx = 0; tx < width; tx++) {
      const x0 = Math.floor((tx * p.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * p.width) / width));
      let sum = 0;
      for (let y = y0; y < y1; y++) {
        const row = y * p.width;
        if (p.format === 'i420') {
          for (let x = x0; x < x1; x++) sum += d[row + x];
        } else {
          // BT.601 luma in limited range, so both formats give comparable values.
          for (let x = x0; x < x1; x++) {
            const i = (row + x) * 4;
            sum += 16 + ((66 * d[i] + 129 * d[i + 1] + 25 * d[i + 2] + 128) >> 8);
          }
        }
      }
      out[ty * width + tx] = Math.round(sum / ((y1 - y0) * (x1 - x0)));
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
