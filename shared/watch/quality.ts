import type { Picture } from '../decode';
import { grayThumbnail } from '../picture/gray';
import type { FaceDirection } from '../vision/types';
import type { Box } from './geometry';

/**
 * How good a face's picture is, so that a flow can route on it ("only a sharp, front-facing face"):
 * measured on the sample's decoded picture, inside the face's box, with no API call.
 */
export interface FaceQuality {
  /** The shorter side of the face's box, in pixels of the frame. */
  face_px: number;
  /**
   * Edge contrast of the face, 0 (flat or badly blurred) to 1: the mean absolute Laplacian of a grey
   * copy of the face (48x48 at most), as a share of SHARPNESS_FULL. See the README for measured values.
   */
  sharpness: number;
  /** Mean brightness of the face, 0 (black) to 1 (white), on the video's luma range. */
  brightness: number;
  /** True when the face has no colour: a camera's infrared night picture (or a grey-scale camera). */
  greyscale: boolean;
  /** Where the face looks, as the service reported it. */
  direction: FaceDirection | null;
}

/** Largest side of the grey copy the sharpness and brightness are measured on (a smaller face: its own size, never enlarged). */
const SIDE = 48;
/** The mean absolute Laplacian (0-255 grey levels) that counts as fully sharp. */
const SHARPNESS_FULL = 16;
/** Largest mean chroma distance from grey (0-255) of a picture without colour. */
const GREY_CHROMA = 4;

/** The quality of the face at `box` in `picture`. */
export function faceQuality(picture: Picture, box: Box, direction: FaceDirection | null): FaceQuality {
  const facePx = Math.max(0, Math.round(Math.min(box.right - box.left, box.bottom - box.top)));
  // Enlarging a small face would make steps of its pixels, which read as sharp edges.
  const side = Math.max(8, Math.min(SIDE, facePx));
  const grey = grayThumbnail(picture, side, side, box);
  let sum = 0;
  for (const v of grey) sum += v;
  const mean = sum / grey.length;
  return {
    face_px: facePx,
    sharpness: round2(Math.min(1, meanLaplacian(grey, side) / SHARPNESS_FULL)),
    // I420's luma runs from 16 to 235; RGB pictures are brought to the same range by grayThumbnail.
    brightness: round2(Math.max(0, Math.min(1, (mean - 16) / 219))),
    greyscale: chromaOf(picture, box) <= GREY_CHROMA,
    direction,
  };
}

/**
 * True when `now` is a clearly better picture of a face than `then`: a quarter larger, half as
 * sharp again, or out of the dark. A face judged unknown on a poor sample is worth another compare then.
 */
export function clearlyBetter(now: FaceQuality, then: FaceQuality): boolean {
  if (now.face_px >= then.face_px * 1.25) return true;
  if (now.sharpness >= then.sharpness * 1.5 && now.sharpness - then.sharpness >= 0.1) return true;
  return then.brightness < 0.2 && now.brightness >= then.brightness + 0.15;
}

function meanLaplacian(g: Uint8Array, side: number): number {
  let sum = 0;
  for (let y = 1; y < side - 1; y++) {
    for (let x = 1; x < side - 1; x++) {
      const i = y * side + x;
      sum += Math.abs(4 * g[i] - g[i - 1] - g[i + 1] - g[i - side] - g[i + side]);
    }
  }
  return sum / ((side - 2) * (side - 2) * 4);
}

/** Mean distance from grey of the colour in a region, sampled on a grid (0-255). */
function chromaOf(p: Picture, box: Box): number {
  const left = Math.max(0, Math.floor(box.left));
  const top = Math.max(0, Math.floor(box.top));
  const right = Math.min(p.width, Math.ceil(box.right));
  const bottom = Math.min(p.height, Math.ceil(box.bottom));
  if (right <= left || bottom <= top) return 0;
  const step = Math.max(1, Math.floor(Math.min(right - left, bottom - top) / 16));
  let sum = 0;
  let n = 0;
  if (p.format === 'i420') {
    const cw = Math.ceil(p.width / 2);
    const ch = Math.ceil(p.height / 2);
    const u = p.width * p.height;
    const v = u + cw * ch;
    for (let y = top; y < bottom; y += step) {
      for (let x = left; x < right; x += step, n++) {
        const c = (y >> 1) * cw + (x >> 1);
        sum += Math.abs(p.data[u + c] - 128) + Math.abs(p.data[v + c] - 128);
      }
    }
    return sum / n / 2;
  }
  const px = p.format === 'rgb' ? 3 : 4;
  for (let y = top; y < bottom; y += step) {
    for (let x = left; x < right; x += step, n++) {
      const i = (y * p.width + x) * px;
      const [r, g, b] = [p.data[i], p.data[i + 1], p.data[i + 2]];
      sum += (Math.abs(r - g) + Math.abs(g - b) + Math.abs(b - r)) / 3;
    }
  }
  return sum / n;
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
