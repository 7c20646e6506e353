import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** Small synthetic images built at test time (nothing binary is committed). */

/** A solid-grey JPEG; `shade` varies the bytes so digests differ. */
export function tinyJpeg(width = 32, height = 32, shade = 128): Buffer {
  const data = Buffer.alloc(width * height * 4, shade);
  return Buffer.from(jpeg.encode({ data, width, height }, 80).data);
}

/** A solid-grey PNG. */
export function tinyPng(width = 32, height = 32, shade = 96): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(shade);
  return PNG.sync.write(png);
}

/**
 * A structurally valid JPEG of about `size` bytes: comment segments (at most 65533 bytes of
 * payload each) are inserted after SOI, so sniffing passes and only the size rules apply.
 */
export function paddedJpeg(size: number): Buffer {
  const base = tinyJpeg();
  const parts: Buffer[] = [base.subarray(0, 2)];
  let total = base.length;
  while (total < size) {
    const payload = Math.min(65533, Math.max(1, size - total - 4));
    const header = Buffer.from([0xff, 0xfe, 0, 0]);
    header.writeUInt16BE(payload + 2, 2);
    parts.push(header, Buffer.alloc(payload, 0x20));
    total += payload + 4;
  }
  parts.push(base.subarray(2));
  return Buffer.concat(parts);
}
