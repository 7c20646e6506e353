import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** A decoded picture: packed RGB, 3 bytes per pixel, row by row. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The image could not be read (not JPEG/PNG, truncated, or too large to decode). */
export class UnreadableImageError extends Error {
  override name = 'UnreadableImageError';
}

/** Largest picture decoded, in megapixels; bigger ones are refused rather than exhausting memory. */
const MAX_MEGAPIXELS = 50;

/** Which format the bytes are, from their signature. */
export function sniffFormat(bytes: Uint8Array): 'jpeg' | 'png' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  return undefined;
}

/** Decodes JPEG or PNG bytes (format sniffed, not trusted from headers) to RGB. */
export function decodeImage(bytes: Buffer): RgbImage {
  const format = sniffFormat(bytes);
  if (!format) throw new UnreadableImageError('The image is neither JPEG nor PNG.');
  try {
    return format === 'jpeg' ? decodeJpeg(bytes) : decodePng(bytes);
  } catch (err) {
    if (err instanceof UnreadableImageError) throw err;
    throw new UnreadableImageError(`The ${format.toUpperCase()} image could not be decoded.`);
  }
}

function decodeJpeg(bytes: Buffer): RgbImage {
  const image = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: false,
    maxResolutionInMP: MAX_MEGAPIXELS,
    maxMemoryUsageInMB: 1024,
  });
  // jpeg-js fills a truncated scan with grey instead of failing; a missing end marker gives it away.
  if (!hasJpegEnd(bytes)) throw new UnreadableImageError('The JPEG image is truncated.');
  return { width: image.width, height: image.height, data: image.data };
}

function hasJpegEnd(bytes: Buffer): boolean {
  // Some encoders pad after the end-of-image marker, so look near the end rather than at it.
  const tail = bytes.subarray(Math.max(0, bytes.length - 64));
  for (let i = tail.length - 2; i >= 0; i -= 1) if (tail[i] === 0xff && tail[i + 1] === 0xd9) return true;
  return false;
}

function decodePng(bytes: Buffer): RgbImage {
  // The size is read from the IHDR chunk first: a small, highly compressed PNG can inflate to gigabytes.
  if (bytes.length >= 24 && bytes.readUInt32BE(16) * bytes.readUInt32BE(20) > MAX_MEGAPIXELS * 1_000_000) {
    throw new UnreadableImageError(`The PNG image is larger than ${MAX_MEGAPIXELS} megapixels.`);
  }
  const png = PNG.sync.read(bytes);
  const rgb = new Uint8Array(png.width * png.height * 3);
  const rgba = png.data;
  for (let src = 0, dst = 0; src < rgba.length; src += 4, dst += 3) {
    // Transparent pixels are composed over white, the usual background of a document picture.
    const alpha = rgba[src + 3] / 255;
    rgb[dst] = Math.round(rgba[src] * alpha + 255 * (1 - alpha));
    rgb[dst + 1] = Math.round(rgba[src + 1] * alpha + 255 * (1 - alpha));
    rgb[dst + 2] = Math.round(rgba[src + 2] * alpha + 255 * (1 - alpha));
  }
  return { width: png.width, height: png.height, data: rgb };
}
