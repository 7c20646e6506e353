import type { Picture } from '../decode/types';

/** Interleaved pixels as sharp's raw input takes them. */
export interface RawPixels {
  data: Uint8Array | Uint8ClampedArray;
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

/** Bytes a picture of this size and format needs. */
export function pictureBytes(p: Pick<Picture, 'width' | 'height' | 'format'>): number {
  if (p.format === 'i420') return i420Layout(p.width, p.height).size;
  return p.width * p.height * (p.format === 'rgb' ? 3 : 4);
}

/** Checks that a picture's buffer holds what its size and format promise. */
export function checkPicture(p: Picture): void {
  if (!(p.width > 0 && p.height > 0 && Number.isInteger(p.width) && Number.isInteger(p.height))) {
    throw new RangeError(`picture size ${p.width}x${p.height} is not a positive whole size`);
  }
  const need = pictureBytes(p);
  if (p.data.length < need) throw new RangeError(`picture data has ${p.data.length} bytes, ${p.format} ${p.width}x${p.height} needs ${need}`);
}

/**
 * A whole picture as sharp's raw input, sharing the picture's bytes when it is RGB or RGBA already
 * (for readers only: sharp copies nothing and changes nothing), converted from I420 otherwise.
 */
export function rawView(p: Picture): RawPixels {
  checkPicture(p);
  if (p.format === 'i420') return toRaw(p);
  return { data: p.data, width: p.width, height: p.height, channels: p.format === 'rgb' ? 3 : 4 };
}

/**
 * A region of a picture as interleaved RGB (3 channels) or RGBA (4), in a new buffer, as sharp's raw
 * input wants it. I420 uses BT.601 limited range, what WebRTC's encoders produce.
 */
export function toRaw(p: Picture, channels: 3 | 4 = 3, region?: { left: number; top: number; width: number; height: number }): RawPixels {
  checkPicture(p);
  const { left = 0, top = 0, width = p.width, height = p.height } = region ?? {};
  const out = new Uint8ClampedArray(width * height * channels);
  if (p.format !== 'i420') {
    const from = p.format === 'rgb' ? 3 : 4;
    for (let y = 0; y < height; y++) {
      const row = ((top + y) * p.width + left) * from;
      if (channels === from) {
        out.set(p.data.subarray(row, row + width * from), y * width * from);
        continue;
      }
      for (let x = 0, i = row, o = y * width * channels; x < width; x++, i += from, o += channels) {
        out[o] = p.data[i];
        out[o + 1] = p.data[i + 1];
        out[o + 2] = p.data[i + 2];
        if (channels === 4) out[o + 3] = 255;
      }
    }
    return { data: out, width, height, channels };
  }
  const { u: uAt, v: vAt, chromaWidth } = i420Layout(p.width, p.height);
  if (!region && channels === 3 && (p.width & 1) === 0 && (p.height & 1) === 0) {
    i420ToRgb(p.data, p.width, p.height, uAt, vAt, out);
    return { data: out, width, height, channels };
  }
  const { luma, rv, gu, gv, bu } = tables();
  // Values are 8.8 fixed point; the clamped array saturates them at 0 and 255 by itself.
  const d = p.data;
  const a = channels === 4;
  let o = 0;
  for (let y = 0; y < height; y++) {
    const sy = top + y;
    const yRow = sy * p.width + left;
    const cRow = (sy >> 1) * chromaWidth;
    // Chroma terms are worked out once per chroma sample and shared by its two pixels.
    let x = 0;
    let r = 0;
    let g = 0;
    let b = 0;
    if ((left & 1) === 1) x = -1; // the first pixel is the right half of a chroma pair
    for (; x < width; x += 2) {
      const cx = cRow + ((left + x) >> 1);
      const u = d[uAt + cx];
      const v = d[vAt + cx];
      r = rv[v];
      g = gu[u] + gv[v];
      b = bu[u];
      if (x >= 0) {
        putRgb(out, o, luma[d[yRow + x]], r, g, b);
        if (a) out[o + 3] = 255;
        o += channels;
      }
      if (x + 1 < width) {
        putRgb(out, o, luma[d[yRow + x + 1]], r, g, b);
        if (a) out[o + 3] = 255;
        o += channels;
      }
    }
  }
  return { data: out, width, height, channels };
}

/**
 * A whole I420 picture of even size to RGB, two rows at a time: each chroma sample's terms are
 * worked out once for the 2x2 pixels that share it (the snapshot of every sample goes through here).
 */
function i420ToRgb(d: Uint8Array, w: number, h: number, uAt: number, vAt: number, out: Uint8ClampedArray): void {
  const { luma, rv, gu, gv, bu } = tables();
  const chromaWidth = w >> 1;
  for (let y = 0; y < h; y += 2) {
    let y0 = y * w;
    let y1 = y0 + w;
    let o0 = y * w * 3;
    let o1 = o0 + w * 3;
    let c = (y >> 1) * chromaWidth;
    for (let x = 0; x < w; x += 2, c++) {
      const v = d[vAt + c];
      const u = d[uAt + c];
      const r = rv[v];
      const g = gu[u] + gv[v];
      const b = bu[u];
      putRgb(out, o0, luma[d[y0]], r, g, b);
      putRgb(out, o0 + 3, luma[d[y0 + 1]], r, g, b);
      putRgb(out, o1, luma[d[y1]], r, g, b);
      putRgb(out, o1 + 3, luma[d[y1 + 1]], r, g, b);
      y0 += 2;
      y1 += 2;
      o0 += 6;
      o1 += 6;
    }
  }
}

/** One pixel from its luma term and its chroma sample's terms (8.8 fixed point; the clamped array saturates). */
function putRgb(out: Uint8ClampedArray, o: number, luma: number, r: number, g: number, b: number): void {
  out[o] = (luma + r) >> 8;
  out[o + 1] = (luma - g) >> 8;
  out[o + 2] = (luma + b) >> 8;
}

let cached: { luma: Int32Array; rv: Int32Array; gu: Int32Array; gv: Int32Array; bu: Int32Array } | undefined;

// BT.601 limited range in 8.8 fixed point, one table per term (a multiply per pixel saved).
function tables(): NonNullable<typeof cached> {
  if (cached) return cached;
  const t = { luma: new Int32Array(256), rv: new Int32Array(256), gu: new Int32Array(256), gv: new Int32Array(256), bu: new Int32Array(256) };
  for (let i = 0; i < 256; i++) {
    t.luma[i] = (i - 16) * 298 + 128;
    t.rv[i] = 409 * (i - 128);
    t.gu[i] = 100 * (i - 128);
    t.gv[i] = 208 * (i - 128);
    t.bu[i] = 516 * (i - 128);
  }
  cached = t;
  return t;
}

/** A picture in RGBA (converted when needed). */
export function toRgba(p: Picture): Picture {
  if (p.format === 'rgba') return p;
  const { data } = toRaw(p, 4);
  return { width: p.width, height: p.height, format: 'rgba', data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), timestamp: p.timestamp };
}
