import { promises as fs } from 'node:fs';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Picture } from '../../shared/decode';
import { cropToJpeg, drawBoxes, drawBoxesOnImage, encodeJpeg, grayThumbnail, pictureBackend, scaleJpeg, thumbnailDifference, toRaw, toRgba } from '../../shared/picture';
import { InputError } from '../../shared/errors';
import { ASTRONAUT, astronautClip } from './support/clips';

let frame: Picture;
beforeAll(async () => {
  const clip = await astronautClip('VP8', 1);
  frame = { width: clip.width, height: clip.height, format: 'i420', data: clip.source[0], timestamp: 0 };
});

/** The frame in each format a decoder gives: I420 (wasm), RGB (ffmpeg), RGBA. */
function inFormat(format: Picture['format']): Picture {
  if (format === 'i420') return frame;
  const raw = toRaw(frame, format === 'rgb' ? 3 : 4);
  return { ...frame, format, data: new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength) };
}
const FORMATS: Picture['format'][] = ['i420', 'rgb', 'rgba'];

function decodeJpeg(buf: Buffer): { width: number; height: number; data: Uint8Array } {
  expect(buf.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  return jpeg.decode(buf, { useTArray: true });
}

function pixel(img: { width: number; data: Uint8Array }, x: number, y: number, channels = 4): number[] {
  const i = (y * img.width + x) * channels;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
}

/** Grey thumbnail of decoded RGBA pixels, to compare with the source picture's. */
function thumbOfRgba(img: { width: number; height: number; data: Uint8Array }): Uint8Array {
  return grayThumbnail({ width: img.width, height: img.height, format: 'rgba', data: img.data, timestamp: 0 });
}

test('pictures are made with sharp, natively when its platform package loads', () => {
  expect(['sharp-native', 'sharp-wasm']).toContain(pictureBackend());
  // This machine has @img/sharp-linux-x64: the native build is the one that loads.
  expect(pictureBackend()).toBe('sharp-native');
});

test.each(FORMATS)('encodeJpeg (%s): a JPEG of the whole frame that looks like it, and the picture is left as it was', async (format) => {
  const picture = inFormat(format);
  const before = Buffer.from(picture.data);
  const out = decodeJpeg(await encodeJpeg(picture, { quality: 85 }));
  expect([out.width, out.height]).toEqual([640, 480]);
  expect(thumbnailDifference(thumbOfRgba(out), grayThumbnail(frame))).toBeLessThan(3);
  expect(Buffer.from(picture.data).equals(before)).toBe(true);
});

test.each(FORMATS)('cropToJpeg (%s): the region, scaled to the size asked for', async (format) => {
  const box = { left: 200, top: 100, right: 450, bottom: 350 };
  const out = decodeJpeg(await cropToJpeg(inFormat(format), box, { width: 200, height: 200 }));
  expect([out.width, out.height]).toEqual([200, 200]);
  // Compare with the same region cut from the full JPEG (nearest-neighbour scaled in the test).
  const full = decodeJpeg(await encodeJpeg(frame, { quality: 95 }));
  const ref = new Uint8Array(200 * 200 * 4);
  for (let y = 0; y < 200; y++) {
    for (let x = 0; x < 200; x++) {
      const sx = box.left + Math.floor((x * 250) / 200);
      const sy = box.top + Math.floor((y * 250) / 200);
      ref.set(full.data.subarray((sy * 640 + sx) * 4, (sy * 640 + sx) * 4 + 4), (y * 200 + x) * 4);
    }
  }
  const diff = thumbnailDifference(thumbOfRgba(out), thumbOfRgba({ width: 200, height: 200, data: ref }));
  expect(diff).toBeLessThan(6);
  // A box reaching past the edges is clipped to the picture.
  const edge = decodeJpeg(await cropToJpeg(inFormat(format), { left: -50, top: 400, right: 100, bottom: 600 }, { width: 120, height: 160 }));
  expect([edge.width, edge.height]).toEqual([120, 160]);
});

test.each(FORMATS)('drawBoxes (%s): a JPEG with the rectangle drawn in its colour, on a copy of the picture', async (format) => {
  const picture = inFormat(format);
  const before = Buffer.from(picture.data);
  const out = decodeJpeg(await drawBoxes(picture, [{ location: { left: 100, top: 100, right: 300, bottom: 260 }, label: 'Ada <&>', color: '#ff0000' }]));
  expect([out.width, out.height]).toEqual([640, 480]);
  // On the top edge: red, as far as JPEG's halved colour resolution leaves a thin line red.
  const [r, g, b] = pixel(out, 200, 100);
  expect(r).toBeGreaterThan(170);
  expect(r - Math.max(g, b)).toBeGreaterThan(100);
  // Inside the box the frame is untouched.
  const inside = pixel(out, 200, 180);
  const plain = pixel(decodeJpeg(await encodeJpeg(frame)), 200, 180);
  inside.forEach((v, i) => expect(Math.abs(v - plain[i])).toBeLessThan(20));
  expect(Buffer.from(picture.data).equals(before)).toBe(true);
});

test('drawBoxesOnImage: JPEG in gives JPEG out, PNG in gives PNG out', async () => {
  const photo = await fs.readFile(ASTRONAUT);
  const boxes = [{ location: { left: 10, top: 20, right: 110, bottom: 120 }, color: '#0000ff' }];
  const fromJpeg = decodeJpeg(await drawBoxesOnImage(photo, boxes));
  expect([fromJpeg.width, fromJpeg.height]).toEqual([512, 512]);
  const [r, , b] = pixel(fromJpeg, 60, 20);
  expect(b).toBeGreaterThan(180);
  expect(r).toBeLessThan(90);

  const png = new PNG({ width: 64, height: 48 });
  png.data.fill(255);
  const pngOut = await drawBoxesOnImage(PNG.sync.write(png), [{ location: { left: 8, top: 8, right: 40, bottom: 30 }, color: 'red' }]);
  const decoded = PNG.sync.read(pngOut);
  expect([decoded.width, decoded.height]).toEqual([64, 48]);
  expect(pixel(decoded, 20, 8)).toEqual([255, 0, 0]);
  expect(pixel(decoded, 20, 20)).toEqual([255, 255, 255]);
});

test('scaleJpeg: a JPEG that many pixels wide, its height in proportion, never enlarged', async () => {
  const photo = await fs.readFile(ASTRONAUT);
  const small = decodeJpeg(await scaleJpeg(photo, 256, { quality: 50 }));
  expect([small.width, small.height]).toEqual([256, 256]);
  const wide = decodeJpeg(await scaleJpeg(await encodeJpeg(frame), 160));
  expect([wide.width, wide.height]).toEqual([160, 120]);
  const same = decodeJpeg(await scaleJpeg(photo, 2000));
  expect([same.width, same.height]).toEqual([512, 512]);
  await expect(scaleJpeg(photo, 0)).rejects.toMatchObject({ field: 'width', limit: '1-4096' });
  const png = new PNG({ width: 8, height: 8 });
  await expect(scaleJpeg(PNG.sync.write(png), 4)).rejects.toMatchObject({ field: 'image', limit: 'JPEG' });
  await expect(scaleJpeg(Buffer.concat([photo.subarray(0, 200), Buffer.alloc(64)]), 4)).rejects.toBeInstanceOf(InputError);
});

test('grayThumbnail: small, and the same for I420, RGB and RGBA of one picture', () => {
  const a = grayThumbnail(frame);
  expect(a.length).toBe(32 * 24);
  expect(thumbnailDifference(a, grayThumbnail(toRgba(frame)))).toBeLessThan(2);
  expect(thumbnailDifference(a, grayThumbnail(inFormat('rgb')))).toBeLessThan(2);
  expect(grayThumbnail(inFormat('rgb'))).toEqual(grayThumbnail(inFormat('rgba')));
  expect(grayThumbnail(frame, 8, 6).length).toBe(48);
  const shifted = { ...frame, data: frame.data.map((v, i) => (i < 640 * 480 ? Math.min(255, v + 40) : v)) };
  expect(thumbnailDifference(a, grayThumbnail(shifted))).toBeGreaterThan(20);
});

test('bad input: a clear error naming the field and the limit', async () => {
  await expect(encodeJpeg(frame, { quality: 0 })).rejects.toMatchObject({ field: 'quality', limit: '1-100' });
  await expect(cropToJpeg(frame, { left: 700, top: 0, right: 800, bottom: 50 }, { width: 10, height: 10 })).rejects.toMatchObject({ field: 'box' });
  await expect(cropToJpeg(frame, { left: 0, top: 0, right: 50, bottom: 50 }, { width: 0, height: 10 })).rejects.toMatchObject({ field: 'size.width' });
  await expect(drawBoxes(frame, [{ location: { left: 0, top: 0, right: 5, bottom: 5 }, color: 'red"/><script' }])).rejects.toMatchObject({ field: 'boxes[0].color' });
  await expect(drawBoxesOnImage(Buffer.from('not an image'), [])).rejects.toBeInstanceOf(InputError);
  await expect(encodeJpeg({ ...frame, data: frame.data.subarray(0, 100) })).rejects.toThrow(/needs 460800/);
});
