import type { ImageMime } from './limits';

/** What the first and last bytes say about an image. */
export interface Sniffed {
  mime: ImageMime;
  /** False when the file ends before its end marker (JPEG EOI, PNG IEND). */
  complete: boolean;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Identifies JPEG or PNG from magic numbers and checks the file is not cut short; undefined for anything else. */
export function sniffImage(bytes: Uint8Array): Sniffed | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) {
    return { mime: 'image/jpeg', complete: jpegComplete(buf) };
  }
  if (buf.length >= 8 && buf.subarray(0, 8).equals(PNG_SIGNATURE)) {
    return { mime: 'image/png', complete: pngComplete(buf) };
  }
  return undefined;
}

/**
 * Walks the marker segments up to the start of scan, then looks for EOI after it. Searching
 * only after SOS skips the EOI of an EXIF thumbnail, which would otherwise hide a truncation.
 */
function jpegComplete(buf: Buffer): boolean {
  let pos = 2;
  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) return false;
    const marker = buf[pos + 1];
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) return true; // EOI without image data: structurally whole
    if (marker >= 0xd0 && marker <= 0xd7) {
      pos += 2;
      continue;
    }
    const length = buf.readUInt16BE(pos + 2);
    if (length < 2) return false;
    const next = pos + 2 + length;
    if (marker === 0xda) return next <= buf.length && buf.indexOf(EOI, next) !== -1;
    pos = next;
  }
  return false;
}

const EOI = Buffer.from([0xff, 0xd9]);

/** Follows the chunk lengths to IEND; a length that runs past the end means a cut file. */
function pngComplete(buf: Buffer): boolean {
  let pos = 8;
  while (pos + 12 <= buf.length) {
    const length = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const next = pos + 12 + length;
    if (next > buf.length) return false;
    if (type === 'IEND') return true;
    pos = next;
  }
  return false;
}
