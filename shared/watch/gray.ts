import { rgbLuma } from '../picture/gray';
import type { Box } from './geometry';

/** The fields of a decoded picture that a grey thumbnail needs (the decoders' Picture has them). */
export interface PlanarPicture {
  width: number;
  height: number;
  format: 'i420' | 'rgb' | 'rgba';
  data: Uint8Array;
}

/**
 * A width x height grey copy of a region of a picture, each cell the mean brightness of the pixels
 * it covers (the Y plane of I420, or the BT.601 luma of RGB(A)). Cheap: used for face looks.
 */
export function regionGray(p: PlanarPicture, region: Box, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const left = Math.max(0, Math.floor(region.left));
  const top = Math.max(0, Math.floor(region.top));
  const rw = Math.max(1, Math.min(p.width, Math.ceil(region.right)) - left);
  const rh = Math.max(1, Math.min(p.height, Math.ceil(region.bottom)) - top);
  // A step keeps the cost bounded for large regions: at most about 4x4 source pixels per cell.
  const stepX = Math.max(1, Math.floor(rw / width / 4));
  const stepY = Math.max(1, Math.floor(rh / height / 4));
  for (let cy = 0; cy < height; cy++) {
    const y0 = top + Math.floor((cy * rh) / height);
    const y1 = Math.max(y0 + 1, top + Math.floor(((cy + 1) * rh) / height));
    for (let cx = 0; cx < width; cx++) {
      const x0 = left + Math.floor((cx * rw) / width);
      const x1 = Math.max(x0 + 1, left + Math.floor(((cx + 1) * rw) / width));
      let sum = 0;
      let n = 0;
      for (let y = y0; y < y1 && y < p.height; y += stepY) {
        for (let x = x0; x < x1 && x < p.width; x += stepX) {
          sum += luma(p, x, y);
          n++;
        }
      }
      out[cy * width + cx] = n ? Math.round(sum / n) : 0;
    }
  }
  return out;
}

function luma(p: PlanarPicture, x: number, y: number): number {
  if (p.format === 'i420') return p.data[y * p.width + x];
  const i = (y * p.width + x) * (p.format === 'rgb' ? 3 : 4);
  return rgbLuma(p.data[i], p.data[i + 1], p.data[i + 2]);
}
