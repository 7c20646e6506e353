/**
 * Which crops find a face again after video compression, and in which order to try them.
 *
 * The watcher finds faces with detect_faces on a whole frame, then compares each face's crop; on
 * a compressed frame the service's detector can miss the face in the crop it found in the frame
 * (400 face_not_found). This benchmark makes such frames: faces of face-api's demo photos (read
 * from node_modules at run time) pasted on a wall at several sizes, encoded to VP8 at a camera's
 * bitrate by the dev ffmpeg and decoded again (an inter frame, as a viewer mostly gets). For every
 * face the service detects in a frame, it compares the watcher's first crop and, where that fails,
 * every other candidate, through the sandbox's real face model.
 *
 * Prints, for the faces whose first crop failed: how many each candidate recovers, and how many each
 * order of the candidates recovers within the watcher's retries. Last line: JSON.
 *
 *   npm run bench:crop-retry   (BENCH_BITRATE=600k by default; BENCH_SIZES=64,96,150)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type SharpModule from 'sharp';
import { startSandbox } from '../sandbox';
import type { Picture } from '../shared/decode';
import { findFfmpeg } from '../shared/media';
import { cropToJpeg, encodeJpeg } from '../shared/picture';
import { VisionClient } from '../shared/vision';
import { DEFAULT_CROP_RULE, fitsAsItIs, planCrop, type CropRule } from '../shared/watch/crop-geometry';
import type { Box } from '../shared/watch/geometry';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- sharp is CommonJS
const sharp = require('sharp') as typeof SharpModule;

const FRAME = { width: 640, height: 480 };
const FPS = 10;
const BITRATE = process.env.BENCH_BITRATE ?? '600k';
const SIZES = (process.env.BENCH_SIZES ?? '64,96,150').split(',').map(Number);
const FACES_PER_PHOTO = 5;

/** The candidates: crop rules (margin, face side aimed at) and the whole frame. */
const CANDIDATES: Record<string, Pick<CropRule, 'margin' | 'targetSide'> | 'whole'> = {
  'first (margin 0.6, side 200)': { margin: DEFAULT_CROP_RULE.margin, targetSide: DEFAULT_CROP_RULE.targetSide },
  'wider (margin 1.0, side 160)': { margin: 1.0, targetSide: 160 },
  'widest (margin 1.5, side 140)': { margin: 1.5, targetSide: 140 },
  'tighter (margin 0.3, side 250)': { margin: 0.3, targetSide: 250 },
  'larger (margin 0.6, side 260)': { margin: 0.6, targetSide: 260 },
  'whole frame': 'whole',
};

async function main(): Promise<void> {
  const ffmpeg = await findFfmpeg();
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, eagerModel: true });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'crop-retry-'));
  const vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
  try {
    const collectionId = (await vision.createCollection()).collectionId;
    const heads = await demoHeads(vision);
    console.error(`${heads.length} faces from the demo photos, sizes ${SIZES.join(', ')} px, VP8 at ${BITRATE}`);
    const scenes = heads.flatMap((head) => SIZES.map((side) => ({ head, side })));
    const frames = await compressed(ffmpeg, dir, await Promise.all(scenes.map((s) => wall(s.head, s.side))));
    const tally = { frames: frames.length, detected: 0, firstOk: 0, firstFailed: 0, recoveredBy: {} as Record<string, number>, failedRows: [] as Record<string, boolean>[] };
    const misses: string[] = [];
    for (const [n, picture] of frames.entries()) {
      const snapshot = await encodeJpeg(picture, { quality: 85 });
      // BENCH_DUMP=DIR keeps the decoded frames, to look at what the detector was given.
      if (process.env.BENCH_DUMP) await writeFile(path.join(process.env.BENCH_DUMP, `frame-${String(n).padStart(3, '0')}.jpg`), snapshot);
      const faces = await vision.detectFaces(snapshot);
      for (const [i, f] of faces.entries()) {
        tally.detected++;
        const box = f.location;
        const prominent = faces.every((g, j) => j === i || area(g.location) <= area(box));
        const row: Record<string, boolean> = {};
        for (const [name, rule] of Object.entries(CANDIDATES)) {
          row[name] = await comparable(vision, collectionId, picture, snapshot, box, rule, prominent);
          if (name.startsWith('first') && row[name]) break;
        }
        if (row[Object.keys(CANDIDATES)[0]]) {
          tally.firstOk++;
          continue;
        }
        tally.firstFailed++;
        tally.failedRows.push(row);
        misses.push(`${scenes[n].head.name}, ${scenes[n].side} px`);
        for (const [name, ok] of Object.entries(row)) if (ok) tally.recoveredBy[name] = (tally.recoveredBy[name] ?? 0) + 1;
      }
    }
    const orders = rankOrders(tally.failedRows);
    console.log(`frames ${tally.frames}, faces detected ${tally.detected}, first crop compared ${tally.firstOk}, first crop failed ${tally.firstFailed}`);
    for (const [name, n] of Object.entries(tally.recoveredBy)) console.log(`  recovered by ${name}: ${n} of ${tally.firstFailed}`);
    for (const o of orders.slice(0, 6)) console.log(`  order ${o.order.join(' -> ')}: ${o.recovered} of ${tally.firstFailed}`);
    for (const m of misses) console.log(`  first crop missed: ${m}`);
    console.log(JSON.stringify({ bitrate: BITRATE, sizes: SIZES, frames: tally.frames, detected: tally.detected, firstFailed: tally.firstFailed, recoveredBy: tally.recoveredBy, bestOrders: orders.slice(0, 3) }));
  } finally {
    await vision.close();
    await sandbox.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** For every order of up to three retries: how many failed faces it recovers (the first that works counts). */
function rankOrders(rows: Record<string, boolean>[]): { order: string[]; recovered: number }[] {
  const names = Object.keys(CANDIDATES).slice(1);
  const orders: string[][] = [];
  const build = (prefix: string[]): void => {
    if (prefix.length > 0) orders.push(prefix);
    if (prefix.length === 3) return;
    for (const n of names) if (!prefix.includes(n)) build([...prefix, n]);
  };
  build([]);
  return orders
    .map((order) => ({ order, recovered: rows.filter((r) => order.some((n) => r[n])).length }))
    .sort((a, b) => b.recovered - a.recovered || a.order.length - b.order.length);
}

async function comparable(vision: VisionClient, collectionId: string, picture: Picture, snapshot: Buffer, box: Box, rule: (typeof CANDIDATES)[string], prominent: boolean): Promise<boolean> {
  let image: Buffer;
  if (rule === 'whole') {
    if (!prominent || !fitsAsItIs(box)) return false;
    image = snapshot;
  } else {
    const plan = planCrop(box, picture, { ...DEFAULT_CROP_RULE, ...rule, minFaceSize: 8 });
    if (!plan.ok) return false;
    image = await cropToJpeg(picture, plan.region, { width: plan.width, height: plan.height }, { quality: 85 });
  }
  try {
    await vision.compareWithCollection(collectionId, image, { maxResults: 1 });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === 'face_not_found' || (err as { code?: string }).code === 'face_size_out_of_range') return false;
    throw err;
  }
}

const area = (b: Box): number => (b.right - b.left) * (b.bottom - b.top);

/** Head-and-shoulders crops (PNG) of the faces the service finds in face-api's demo photos. */
async function demoHeads(vision: VisionClient): Promise<{ png: Buffer; face: Box; name: string }[]> {
  const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
  const heads: { png: Buffer; face: Box; name: string }[] = [];
  for (let n = 1; n <= 6; n++) {
    const photo = path.join(demo, `sample${n}.jpg`);
    const meta = await sharp(photo).metadata();
    const faces = (await vision.detectFaces(await sharp(photo).jpeg().toBuffer())).slice(0, FACES_PER_PHOTO);
    for (const [i, { location: f }] of faces.entries()) {
      const w = f.right - f.left;
      const h = f.bottom - f.top;
      const left = Math.max(0, Math.round(f.left - w * 0.5));
      const top = Math.max(0, Math.round(f.top - h * 0.6));
      const width = Math.min(meta.width! - left, Math.round(w * 2));
      const height = Math.min(meta.height! - top, Math.round(h * 2.3));
      const png = await sharp(photo).extract({ left, top, width, height }).png().toBuffer();
      heads.push({ png, face: { left: f.left - left, top: f.top - top, right: f.right - left, bottom: f.bottom - top }, name: `sample${n}.jpg face ${i} at (${f.left},${f.top})` });
    }
  }
  return heads;
}

/** A frame: a plain wall with one head pasted in its middle, the face `side` px wide. */
async function wall(head: { png: Buffer; face: Box }, side: number): Promise<Buffer> {
  const meta = await sharp(head.png).metadata();
  const scale = side / (head.face.right - head.face.left);
  const width = Math.max(1, Math.round(meta.width! * scale));
  const height = Math.max(1, Math.round(meta.height! * scale));
  const img = await sharp(head.png).resize(width, height).toBuffer();
  const cx = Math.round(((head.face.left + head.face.right) / 2) * scale);
  const cy = Math.round(((head.face.top + head.face.bottom) / 2) * scale);
  const left = Math.max(0, Math.min(FRAME.width - width, FRAME.width / 2 - cx));
  const top = Math.max(0, Math.min(FRAME.height - height, FRAME.height / 2 - cy));
  const cut = await sharp(img)
    .extract({ left: 0, top: 0, width: Math.min(width, FRAME.width), height: Math.min(height, FRAME.height) })
    .toBuffer();
  return sharp({ create: { width: FRAME.width, height: FRAME.height, channels: 3, background: { r: 96, g: 110, b: 124 } } })
    .composite([{ input: cut, left, top }])
    .removeAlpha()
    .raw()
    .toBuffer();
}

/** The frames through VP8 and back: each held for a second (one key frame a second), its last (inter) frame kept. */
async function compressed(ffmpeg: string, dir: string, walls: Buffer[]): Promise<Picture[]> {
  const ivf = path.join(dir, 'clip.ivf');
  const input = Buffer.concat(walls.flatMap((w) => Array.from({ length: FPS }, () => w)));
  await run(ffmpeg, ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${FRAME.width}x${FRAME.height}`, '-r', String(FPS), '-i', '-', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-g', String(FPS), '-b:v', BITRATE, '-pix_fmt', 'yuv420p', '-f', 'ivf', ivf], input);
  const raw = await run(ffmpeg, ['-v', 'error', '-i', ivf, '-vf', `select=eq(mod(n\\,${FPS})\\,${FPS - 1})`, '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
  const size = FRAME.width * FRAME.height * 3;
  return Array.from({ length: Math.floor(raw.length / size) }, (_, i) => ({ ...FRAME, format: 'rgb' as const, data: raw.subarray(i * size, (i + 1) * size), timestamp: i }));
}

function run(bin: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}: ${err.slice(0, 300)}`))));
    if (input) child.stdin!.end(input);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
