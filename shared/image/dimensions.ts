import type { ImageMime } from './limits';

/** Width and height an image's header declares. */
export interface Dimensions {
  width: number;
  height: number;
}

/**
 * The size a JPEG (its frame header, SOFn) or PNG (IHDR) declares, read from the header alone so
 * that an image can be refused before anything decodes it; undefined when the header has none.
 */
export function imageDimensions(bytes: Buffer, mime: ImageMime): Dimensions | undefined {
  return mime === 'image/png' ? pngDimensions(bytes) : jpegDimensions(bytes);
}

function pngDimensions(buf: Buffer): Dimensions | undefined {
  // Signature (8), then the first chunk must be IHDR: length (4), type (4), width (4), height (4).
  if (buf.length < 24 || buf.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** Start-of-frame markers: C0-CF but DHT (C4), JPG (C8) and DAC (CC). */
function isFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegDimensions(buf: Buffer): Dimensions | undefined {
  let pos = 2;
  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) return undefined;
    const marker = buf[pos + 1];
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      pos += 2;
      continue;
    }
    // Start of scan or end of image before a frame header: there is none.
    if (marker === 0xda || marker === 0xd9) return undefined;
    const length = buf.readUInt16BE(pos + 2);
    if (isFrameMarker(marker)) {
      // Length (2), precision (1), height (2), width (2).
      if (pos + 9 > buf.length) return undefined;
      return { height: buf.readUInt16BE(pos + 5), width: buf.readUInt16BE(pos + 7) };
    }
    if (length < 2) return undefined;
    pos += 2 + length;
  }
  return undefined;
}
