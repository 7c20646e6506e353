import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { trustProblem } from '../../shared/util/trust';

/**
 * Image helpers for tests: load the committed fixtures and the licence-unclear face-api samples (read
 * from node_modules at run time, never copied), and derive variants (scaled, cropped, mirrored, broken).
 */

/** Decoded picture: RGBA, 4 bytes per pixel, row by row. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A rectangle in pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Folder of committed, public-domain fixtures (test/fixtures, also when a benchmark runs this file from dist/test/support). */
export const FIXTURES_DIR = [join(__dirname, '..', 'fixtures'), join(__dirname, '..', '..', '..', 'test', 'fixtures')].find((dir) => existsSync(dir)) ?? join(__dirname, '..', 'fixtures');

/** The public-domain astronaut portrait (512x512 JPEG, one frontal face). */
export function astronautJpeg(): Buffer {
  return readFileSync(join(FIXTURES_DIR, 'astronaut.jpg'));
}

/**
 * Where the astronaut's face is in astronautJpeg(), roughly (the face detector's box, measured once).
 * Used to crop and scale the face to a chosen pixel size.
 */
export const ASTRONAUT_FACE: Rect = { x: 163, y: 76, width: 116, height: 110 };

/** Group photo n (1..6) shipped in @vladmandic/face-api's demo folder; read in place, not redistributable. */
export function faceApiSample(n: 1 | 2 | 3 | 4 | 5 | 6): Buffer {
  const root = dirname(require.resolve('@vladmandic/face-api/package.json'));
  return readFileSync(join(root, 'demo', `sample${n}.jpg`));
}

/**
 * Where this user's test clips, decoded photos and transpiled test packages are kept between test
 * files: a folder of their own (0700). Its name in the shared temporary folder can be taken first by
 * another user, who could then plant what the tests read back and run; a folder of that name not
 * this user's alone is passed by for one of this test file's own (jest evaluates this module once per
 * test file), which nothing later reads and nothing removes.
 */
export const TEST_CACHE = ownFolder(join(os.tmpdir(), `vision-streaming-test-clips-${process.getuid?.() ?? 'user'}`));

/** `wanted`, made if missing, when this user alone may write it (not a link); else a new private folder. */
function ownFolder(wanted: string): string {
  try {
    mkdirSync(wanted, { recursive: true, mode: 0o700 });
  } catch {
    // Taken by a file, or not writable: lstat below says which.
  }
  const found = lstatSync(wanted, { throwIfNoEntry: false });
  if (found?.isDirectory() && !trustProblem(found)) return wanted;
  return mkdtempSync(join(os.tmpdir(), 'vision-streaming-test-clips-'));
}

/** A photo at least this large is decoded once per run and kept in TEST_CACHE. */
const KEEP_DECODED_BYTES = 64 * 1024;

/** This file's source, read on the first large decode: part of every kept photo's key. */
let ownSource: Buffer | undefined;

/**
 * Decodes JPEG or PNG bytes to RGBA. A large photo (face-api's 1920 px samples) is decoded once and
 * read back by later test files: in JavaScript its decoding takes about half a second each time.
 */
export function decode(bytes: Buffer): Rgba {
  if (bytes.length < KEEP_DECODED_BYTES) return decodeNow(bytes);
  // This file's code is part of the key: a change to the decoding makes new entries.
  ownSource ??= readFileSync(__filename);
  const file = join(TEST_CACHE, `decoded-${createHash('sha256').update(ownSource).update(bytes).digest('hex').slice(0, 32)}.rgba`);
  try {
    const kept = readFileSync(file);
    return { width: kept.readUInt32LE(0), height: kept.readUInt32LE(4), data: new Uint8Array(kept.buffer, kept.byteOffset + 8, kept.length - 8) };
  } catch {
    // Not kept yet: decoded below.
  }
  const image = decodeNow(bytes);
  const header = Buffer.alloc(8);
  header.writeUInt32LE(image.width, 0);
  header.writeUInt32LE(image.height, 4);
  keep(file, Buffer.concat([header, image.data]));
  return image;
}

function decodeNow(bytes: Buffer): Rgba {
  if (bytes[0] === 0x89) {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
  }
  const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
  return { width: image.width, height: image.height, data: image.data };
}

/** Encodes RGBA as JPEG (quality 1..100). */
export function encodeJpeg(image: Rgba, quality = 90): Buffer {
  return Buffer.from(jpeg.encode({ width: image.width, height: image.height, data: image.data }, quality).data);
}

/** Encodes RGBA as PNG. */
export function encodePng(image: Rgba): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data);
  // Unfiltered rows: pngjs's adaptive filtering takes seconds on a photo; test images need no small files.
  return PNG.sync.write(png, { filterType: 0 });
}

/** Resizes with bilinear sampling (enough for tests; not a quality resampler). */
export function resize(image: Rgba, width: number, height: number): Rgba {
  const out = new Uint8Array(width * height * 4);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y += 1) {
    const fy = Math.max(0, (y + 0.5) * sy - 0.5);
    const y0 = Math.min(image.height - 1, Math.floor(fy));
    const y1 = Math.min(image.height - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x += 1) {
      const fx = Math.max(0, (x + 0.5) * sx - 0.5);
      const x0 = Math.min(image.width - 1, Math.floor(fx));
      const x1 = Math.min(image.width - 1, x0 + 1);
      const wx = fx - x0;
      for (let c = 0; c < 4; c += 1) {
        const a = image.data[(y0 * image.width + x0) * 4 + c];
        const b = image.data[(y0 * image.width + x1) * 4 + c];
        const d = image.data[(y1 * image.width + x0) * 4 + c];
        const e = image.data[(y1 * image.width + x1) * 4 + c];
        out[(y * width + x) * 4 + c] = Math.round((a * (1 - wx) + b * wx) * (1 - wy) + (d * (1 - wx) + e * wx) * wy);
      }
    }
  }
  return { width, height, data: out };
}

/** Scales by a factor, keeping the aspect ratio. */
export function scale(image: Rgba, factor: number): Rgba {
  return resize(image, Math.max(1, Math.round(image.width * factor)), Math.max(1, Math.round(image.height * factor)));
}

/** Cuts a rectangle out (clipped to the image). */
export function crop(image: Rgba, rect: Rect): Rgba {
  const x0 = Math.max(0, Math.round(rect.x));
  const y0 = Math.max(0, Math.round(rect.y));
  const width = Math.min(image.width - x0, Math.round(rect.width));
  const height = Math.min(image.height - y0, Math.round(rect.height));
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const from = ((y0 + y) * image.width + x0) * 4;
    out.set(image.data.subarray(from, from + width * 4), y * width * 4);
  }
  return { width, height, data: out };
}

/** Mirrors left to right (a face turned to one side comes out turned to the other). */
export function mirror(image: Rgba): Rgba {
  const out = new Uint8Array(image.data.length);
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      const from = (y * image.width + x) * 4;
      const to = (y * image.width + (image.width - 1 - x)) * 4;
      out.set(image.data.subarray(from, from + 4), to);
    }
  }
  return { width: image.width, height: image.height, data: out };
}

/**
 * A head-and-shoulders crop around `face` (a face rectangle in `source`), scaled so that the face's width
 * becomes about `faceSide` pixels; JPEG. The detector's box differs from `face` by a few pixels, so keep
 * test sizes away from the 120/280 limits.
 */
export function faceOfSize(source: Buffer, face: Rect, faceSide: number): Buffer {
  return Buffer.from(once(`face:${digest(source)}:${face.x},${face.y},${face.width},${face.height}:${faceSide}`, () => {
    const image = decode(source);
    const region = crop(image, { x: face.x - face.width, y: face.y - face.height * 0.6, width: face.width * 3, height: face.height * 2.6 });
    return encodeJpeg(scale(region, faceSide / face.width), 92);
  }));
}

/**
 * Derived pictures already made, by what they were made from: tests ask for the same crop again and
 * again, and cropping, scaling and encoding one in JavaScript takes up to a second of CPU. Kept in
 * memory for this test file and in TEST_CACHE for later ones (this file's code is part of the key, as
 * for decoded photos). Callers get a copy, so no test sees another's changes.
 */
const made = new Map<string, Buffer>();

function once(key: string, make: () => Buffer): Buffer {
  let bytes = made.get(key);
  if (bytes) return bytes;
  ownSource ??= readFileSync(__filename);
  const file = join(TEST_CACHE, `made-${createHash('sha256').update(ownSource).update(key).digest('hex').slice(0, 32)}`);
  try {
    bytes = readFileSync(file);
  } catch {
    bytes = make();
    keep(file, bytes);
  }
  made.set(key, bytes);
  return bytes;
}

/** Writes a kept file aside and renames it into place: two test files making it at once never read half a file. */
function keep(file: string, bytes: Buffer): void {
  mkdirSync(TEST_CACHE, { recursive: true, mode: 0o700 });
  const aside = `${file}.${randomBytes(6).toString('hex')}`;
  writeFileSync(aside, bytes);
  renameSync(aside, file);
}

function digest(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** The astronaut's face at about `faceSide` pixels wide (see faceOfSize). */
export function astronautFaceOfSize(faceSide: number): Buffer {
  return faceOfSize(astronautJpeg(), ASTRONAUT_FACE, faceSide);
}

/** Converts the service's {left, top, right, bottom} to a Rect. */
export function rectOf(location: { left: number; top: number; right: number; bottom: number }): Rect {
  return { x: location.left, y: location.top, width: location.right - location.left, height: location.bottom - location.top };
}

/** Encodes the mirror image (left-right) of JPEG/PNG bytes as JPEG. */
export function mirrorJpeg(bytes: Buffer): Buffer {
  return Buffer.from(once(`mirror:${digest(bytes)}`, () => encodeJpeg(mirror(decode(bytes)), 92)));
}

/** A plain colour gradient: a valid JPEG with no face in it. */
export function gradientJpeg(width = 320, height = 240): Buffer {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      data[i] = Math.round((255 * x) / width);
      data[i + 1] = Math.round((255 * y) / height);
      data[i + 2] = 128;
      data[i + 3] = 255;
    }
  }
  return encodeJpeg({ width, height, data });
}

/** The first part of a JPEG, cut off mid-scan: starts like a JPEG but cannot be decoded fully. */
export function truncatedJpeg(source: Buffer = astronautJpeg()): Buffer {
  return source.subarray(0, Math.floor(source.length / 2));
}

/**
 * A valid PNG of at least `minBytes` (default 4 MiB + 1 KiB): stored without compression, so the file
 * is as large as its raw RGBA pixels, and quick to make.
 */
export function oversizePng(minBytes = 4 * 1024 * 1024 + 1024): Buffer {
  const side = Math.ceil(Math.sqrt(minBytes / 4)) + 16;
  const png = new PNG({ width: side, height: side });
  png.data = Buffer.alloc(side * side * 4, 200);
  return PNG.sync.write(png, { deflateLevel: 0, filterType: 0 });
}

/** A solid-grey JPEG; `shade` varies the bytes so digests differ. */
export function tinyJpeg(width = 32, height = 32, shade = 128): Buffer {
  return encodeJpeg(solid(width, height, shade), 80);
}

/** A solid-grey PNG. */
export function tinyPng(width = 32, height = 32, shade = 96): Buffer {
  return encodePng(solid(width, height, shade));
}

/**
 * A structurally valid JPEG of about `size` bytes (at least `size`, at most 4 bytes more): comment
 * segments (at most 65533 bytes of payload each) are inserted after SOI, so sniffing and decoding
 * pass and only the size rules apply.
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

function solid(width: number, height: number, shade: number): Rgba {
  const data = new Uint8Array(width * height * 4).fill(shade);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width, height, data };
}
