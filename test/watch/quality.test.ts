import type { Picture } from '../../shared/decode';
import type { Box } from '../../shared/watch/geometry';
import { clearlyBetter, faceQuality, type FaceQuality } from '../../shared/watch/quality';
import { Tracker } from '../../shared/watch/tracker';
import { ASTRONAUT_FACE, astronautJpeg, decode, type Rgba } from '../support/images';

// The quality of a face is measured on the decoded picture, inside the face's box: the public-domain
// astronaut portrait as it is, blurred, darkened, without colour, and in I420 as decoders give it.

const face: Box = { left: ASTRONAUT_FACE.x, top: ASTRONAUT_FACE.y, right: ASTRONAUT_FACE.x + ASTRONAUT_FACE.width, bottom: ASTRONAUT_FACE.y + ASTRONAUT_FACE.height };
const photo = decode(astronautJpeg());
const picture = (image: Rgba): Picture => ({ width: image.width, height: image.height, format: 'rgba', data: image.data, timestamp: 0 });

function boxBlur(image: Rgba, radius: number): Rgba {
  const { width, height } = image;
  let src = image.data;
  for (const [dx, dy] of [
    [1, 0],
    [0, 1],
  ]) {
    const out = new Uint8Array(src.length);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        for (let c = 0; c < 4; c++) {
          let sum = 0;
          let n = 0;
          for (let k = -radius; k <= radius; k++) {
            const xx = x + k * dx;
            const yy = y + k * dy;
            if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
            sum += src[(yy * width + xx) * 4 + c];
            n++;
          }
          out[(y * width + x) * 4 + c] = Math.round(sum / n);
        }
      }
    }
    src = out;
  }
  return { width, height, data: src };
}

function mapPixels(image: Rgba, fn: (r: number, g: number, b: number) => [number, number, number]): Rgba {
  const data = new Uint8Array(image.data);
  for (let i = 0; i < data.length; i += 4) [data[i], data[i + 1], data[i + 2]] = fn(data[i], data[i + 1], data[i + 2]);
  return { ...image, data };
}

function toI420(image: Rgba): Picture {
  const { width, height } = image;
  const cw = Math.ceil(width / 2);
  const ch = Math.ceil(height / 2);
  const data = new Uint8Array(width * height + 2 * cw * ch);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const [r, g, b] = [image.data[i], image.data[i + 1], image.data[i + 2]];
      data[y * width + x] = 16 + ((66 * r + 129 * g + 25 * b + 128) >> 8);
      if (y % 2 === 0 && x % 2 === 0) {
        const c = (y / 2) * cw + x / 2;
        data[width * height + c] = 128 + ((-38 * r - 74 * g + 112 * b + 128) >> 8);
        data[width * height + cw * ch + c] = 128 + ((112 * r - 94 * g - 18 * b + 128) >> 8);
      }
    }
  }
  return { width, height, format: 'i420', data, timestamp: 0 };
}

test('a sharp face and the same face blurred differ as the README says: sharpness well apart, the rest alike', () => {
  const sharp = faceQuality(picture(photo), face, 'front');
  const blurred = faceQuality(picture(boxBlur(photo, 5)), face, 'front');
  expect(sharp).toMatchObject({ face_px: 110, greyscale: false, direction: 'front' });
  // The documented scale: a sharp face 0.3 and up, a blurred one under 0.15.
  expect(sharp.sharpness).toBeGreaterThanOrEqual(0.3);
  expect(blurred.sharpness).toBeLessThan(0.15);
  expect(Math.abs(sharp.brightness - blurred.brightness)).toBeLessThan(0.03);
  expect(clearlyBetter(sharp, blurred)).toBe(true);
  expect(clearlyBetter(blurred, sharp)).toBe(false);
});

test('brightness follows the light, greyscale tells an infrared picture, and I420 reads as RGBA does', () => {
  const normal = faceQuality(picture(photo), face, null);
  const dark = faceQuality(picture(mapPixels(photo, (r, g, b) => [r / 5, g / 5, b / 5])), face, null);
  const grey = mapPixels(photo, (r, g, b) => {
    const y = Math.round(0.3 * r + 0.59 * g + 0.11 * b);
    return [y, y, y];
  });
  expect(normal.brightness).toBeGreaterThan(0.3);
  expect(dark.brightness).toBeLessThan(0.15);
  expect(clearlyBetter(normal, dark)).toBe(true);
  expect(faceQuality(picture(grey), face, null).greyscale).toBe(true);
  expect(faceQuality(toI420(grey), face, null).greyscale).toBe(true);
  const yuv = faceQuality(toI420(photo), face, null);
  expect(yuv.greyscale).toBe(false);
  expect(Math.abs(yuv.brightness - normal.brightness)).toBeLessThan(0.03);
  expect(Math.abs(yuv.sharpness - normal.sharpness)).toBeLessThan(0.05);
});

test('a track judged unknown on a poor sample is compared again once seen clearly better, and only then', () => {
  const tracker = new Tracker();
  const q = (sharpness: number, face_px = 100, brightness = 0.5): FaceQuality => ({ face_px, sharpness, brightness, greyscale: false, direction: 'front' });
  const at = { left: 100, top: 100, right: 200, bottom: 200 };
  const [first] = tracker.update([{ box: at, quality: q(0.1) }], 0);
  expect(first.compare).toBe('new');
  tracker.compared(first.track, { kind: 'unknown', score: 0.4 }, 0);
  // About as poor: no new call.
  expect(tracker.update([{ box: at, quality: q(0.12) }], 500)[0].compare).toBeUndefined();
  // Sharp now: compared again.
  const [better] = tracker.update([{ box: at, quality: q(0.4) }], 1000);
  expect(better.compare).toBe('better');
  tracker.compared(better.track, { kind: 'unknown', score: 0.5 }, 1000);
  // The bar moved with it: the same quality again is not worth a call.
  expect(tracker.update([{ box: at, quality: q(0.42) }], 1500)[0].compare).toBeUndefined();
  // A known face is not compared again for looking better (only after recheckSeconds).
  const other = new Tracker();
  const [known] = other.update([{ box: at, quality: q(0.1) }], 0);
  other.compared(known.track, { kind: 'match', faceId: 'f', score: 0.9 }, 0);
  expect(other.update([{ box: at, quality: q(0.9) }], 500)[0].compare).toBeUndefined();
});
