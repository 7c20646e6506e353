import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { Agent } from 'undici';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { InputError } from '../../shared/errors';
import { checkImageBytes, imageDimensions, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, PIXEL_LIMIT_TEXT } from '../../shared/image';
import { drawBoxesOnImage } from '../../shared/picture';
import { imageWithBoxes } from '../../shared/picture/boxes';
import { DRAW_MAX_PIXELS } from '../../shared/picture/jpeg';
import { Slots } from '../../shared/picture/slots';
import { VisionClient } from '../../shared/vision';
import { claimedPng } from '../support/claimed-images';
import { tinyJpeg, tinyPng } from '../support/images';

// Bounded work per image: the pixel count an image's header declares is checked before anything
// decodes or sends it, box drawing decodes within a bound, and what it gives back fits the 4 MiB
// the service takes. Images are made here, small; the huge ones are headers that only claim it.

/** A real small JPEG whose frame header is rewritten to claim width x height. */
function claimedJpeg(width: number, height: number): Buffer {
  const jpeg = Buffer.from(tinyJpeg());
  for (let pos = 2; pos < jpeg.length; ) {
    const marker = jpeg[pos + 1];
    if (marker === 0xc0 || marker === 0xc2) {
      jpeg.writeUInt16BE(height, pos + 5);
      jpeg.writeUInt16BE(width, pos + 7);
      return jpeg;
    }
    pos += 2 + jpeg.readUInt16BE(pos + 2);
  }
  throw new Error('no frame header');
}

let sandbox: RunningSandbox;
let dispatcher: Agent;
let vision: VisionClient;

beforeAll(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
  dispatcher = new Agent();
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', dispatcher });
});

afterAll(async () => {
  await vision?.close();
  await dispatcher?.close();
  await sandbox?.stop();
});

test('the header gives the size: PNG IHDR, JPEG SOF', () => {
  expect(imageDimensions(tinyPng(40, 30), 'image/png')).toEqual({ width: 40, height: 30 });
  expect(imageDimensions(tinyJpeg(48, 20), 'image/jpeg')).toEqual({ width: 48, height: 20 });
  expect(imageDimensions(claimedPng(16000, 16000), 'image/png')).toEqual({ width: 16000, height: 16000 });
});

test.each([
  ['a 746 KB-style 16000x16000 PNG', claimedPng(16000, 16000)],
  ['a 30000x30000 PNG', claimedPng(30000, 30000)],
  ['a JPEG claiming 10000x10000', claimedJpeg(10000, 10000)],
])('%s is refused before anything is sent, with an InputError naming the pixel limit', async (_what, image) => {
  const before = sandbox.stats().requests;
  const err = await vision.detectFaces(image).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  expect(err).toMatchObject({ field: 'image', limit: PIXEL_LIMIT_TEXT, message: expect.stringMatching(/limited to at most 25000000 pixels \(25 megapixels\)/) });
  const drawn = await imageWithBoxes(image, [{ location: { left: 1, top: 1, right: 5, bottom: 5 } }]).catch((e: unknown) => e);
  expect(drawn).toMatchObject({ field: 'image', limit: PIXEL_LIMIT_TEXT });
  expect(String((drawn as Error).message)).not.toMatch(/could not be read/);
  // Not a token, not a detect: nothing left the process.
  expect(sandbox.stats().requests).toBe(before);
});

test('at the limit an image passes; one pixel row more does not; no readable size is refused too', () => {
  const side = Math.floor(Math.sqrt(MAX_IMAGE_PIXELS));
  expect(() => checkImageBytes(claimedPng(side, side), 'image')).not.toThrow();
  expect(() => checkImageBytes(claimedPng(side, side + 1), 'image')).toThrow(/limited to/);
  expect(() => checkImageBytes(claimedPng(0, 10), 'image')).toThrow(/width and height/);
});

test('a drawn JPEG that would pass 4 MiB is encoded again at a lower quality, and stays a JPEG under it', async () => {
  // Noise, stored at a low quality: asked back at quality 100 it would be far larger.
  const noise = await sharp(randomBytes(2200 * 2200 * 3), { raw: { width: 2200, height: 2200, channels: 3 } }).jpeg({ quality: 30 }).toBuffer();
  expect((await sharp(noise).jpeg({ quality: 100 }).toBuffer()).length).toBeGreaterThanOrEqual(MAX_IMAGE_BYTES);
  const out = await drawBoxesOnImage(noise, [{ location: { left: 10, top: 10, right: 300, bottom: 300 }, color: 'red' }], { quality: 100 });
  expect(out.length).toBeLessThan(MAX_IMAGE_BYTES);
  expect(await sharp(out).metadata()).toMatchObject({ format: 'jpeg', width: 2200, height: 2200 });
});

test('a drawn PNG that would pass 4 MiB is made smaller, and stays a PNG under it', async () => {
  // Grey noise: the drawing turns it to colour, three times the bytes.
  const side = 1400;
  const png = await sharp(randomBytes(side * side), { raw: { width: side, height: side, channels: 1 } }).toColourspace('b-w').png({ compressionLevel: 9 }).toBuffer();
  expect(png.length).toBeLessThan(MAX_IMAGE_BYTES);
  const out = await drawBoxesOnImage(png, [{ location: { left: 10, top: 10, right: 300, bottom: 300 }, color: 'red' }]);
  expect(out.length).toBeLessThan(MAX_IMAGE_BYTES);
  const meta = await sharp(out).metadata();
  expect(meta.format).toBe('png');
  expect(meta.width).toBeLessThan(side);
  expect(meta.width).toBe(meta.height);
});

test('an image past the drawing bound is decoded shrunk to it, boxes where they were', async () => {
  const [width, height] = [5000, 3000];
  const plain = await sharp({ create: { width, height, channels: 3, background: '#202020' } }).png().toBuffer();
  const out = await drawBoxesOnImage(plain, [{ location: { left: 2500, top: 1500, right: 4000, bottom: 2500 }, color: 'red' }]);
  const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
  expect(info.width * info.height).toBeLessThanOrEqual(DRAW_MAX_PIXELS);
  expect(info.width / info.height).toBeCloseTo(width / height, 2);
  // The box's left edge, at half the width, still runs through the middle row.
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
  const s = info.width / width;
  expect(at(Math.round(2500 * s), Math.round(2000 * s))).toEqual([255, 0, 0]);
  expect(at(Math.round(2000 * s), Math.round(2000 * s))).toEqual([32, 32, 32]);
});

test('drawings queue for a slot: at most two decode at once', async () => {
  const slots = new Slots(2);
  let running = 0;
  let most = 0;
  const task = () =>
    slots.run(async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setImmediate(r));
      running--;
    });
  await Promise.all(Array.from({ length: 7 }, task));
  expect(most).toBe(2);
  await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await Promise.all([task(), task(), task()]);
  expect(most).toBe(2);
});
