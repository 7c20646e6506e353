import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { findFfmpeg } from '../../shared/media';
import { astronautJpeg, ASTRONAUT_FACE, crop, decode, encodeJpeg, faceApiSample, rectOf, scale, TEST_CACHE, type Rect, type Rgba } from './images';
import { keptFolder } from './test-cache';

/**
 * Clips of people for the watcher's tests and benchmarks, built from photos: person A (the
 * public-domain astronaut) and person B (a face of face-api's demo group photo 1, read from
 * node_modules at run time), pasted on a plain background at chosen sizes, encoded once with the
 * dev ffmpeg. The tests and `bench:watch` make their clips here, so their figures are of one kind of clip.
 */

/** Frame size of every clip. */
export const FRAME = { width: 640, height: 480 };

/** Where B's face is in face-api's sample1.jpg (the first face the sandbox's detector reports; measured once per run). */
export interface People {
  /** A head-and-shoulders crop of A and the face rectangle inside it. */
  a: { image: Rgba; face: Rect };
  b: { image: Rgba; face: Rect };
}

/** Loads A and B as head-and-shoulders crops. bFace: B's face box in sample1.jpg (from detect_faces). */
export function loadPeople(bFace: Rect): People {
  return { a: headAndShoulders(decode(astronautJpeg()), ASTRONAUT_FACE), b: headAndShoulders(decode(faceApiSample(1)), bFace) };
}

/** A head-and-shoulders crop of the face at `face` in a photo, to place in clips. */
export function personFrom(photo: Buffer, face: Rect): { image: Rgba; face: Rect } {
  return headAndShoulders(decode(photo), face);
}

function headAndShoulders(image: Rgba, face: Rect): { image: Rgba; face: Rect } {
  const region = { x: Math.max(0, face.x - face.width * 0.4), y: Math.max(0, face.y - face.height * 0.6), width: face.width * 1.8, height: face.height * 2.4 };
  const out = crop(image, region);
  return { image: out, face: { x: face.x - Math.round(region.x), y: face.y - Math.round(region.y), width: face.width, height: face.height } };
}

/** One person placed in a frame: the person's face is scaled to `faceSide` px wide, its centre at (cx, cy). */
export interface Placement {
  person: { image: Rgba; face: Rect };
  faceSide: number;
  cx: number;
  cy: number;
}

/** A frame: plain background (shade varies the background slightly) with people pasted on it. */
export function frame(placements: readonly Placement[], shade = 90): Rgba {
  const data = new Uint8Array(FRAME.width * FRAME.height * 4);
  for (let y = 0; y < FRAME.height; y++) {
    for (let x = 0; x < FRAME.width; x++) {
      const i = (y * FRAME.width + x) * 4;
      data[i] = shade + ((x >> 5) & 1) * 12;
      data[i + 1] = shade + 20;
      data[i + 2] = shade + 40 + ((y >> 5) & 1) * 12;
      data[i + 3] = 255;
    }
  }
  for (const p of placements) {
    const f = p.faceSide / p.person.face.width;
    const img = scaledOnce(p.person.image, f);
    const ox = Math.round(p.cx - (p.person.face.x + p.person.face.width / 2) * f);
    const oy = Math.round(p.cy - (p.person.face.y + p.person.face.height / 2) * f);
    for (let y = 0; y < img.height; y++) {
      const ty = oy + y;
      if (ty < 0 || ty >= FRAME.height) continue;
      for (let x = 0; x < img.width; x++) {
        const tx = ox + x;
        if (tx < 0 || tx >= FRAME.width) continue;
        const s = (y * img.width + x) * 4;
        const t = (ty * FRAME.width + tx) * 4;
        data[t] = img.data[s];
        data[t + 1] = img.data[s + 1];
        data[t + 2] = img.data[s + 2];
      }
    }
  }
  return { ...FRAME, data };
}

/** The people's pictures scaled, by picture and factor: a clip pastes one scaled picture on many frames. */
const scaled = new WeakMap<Rgba, Map<number, Rgba>>();

/** `scale(image, factor)`, made once per picture and factor (resampling is most of a frame's time). */
function scaledOnce(image: Rgba, factor: number): Rgba {
  let byFactor = scaled.get(image);
  if (!byFactor) scaled.set(image, (byFactor = new Map()));
  let out = byFactor.get(factor);
  if (!out) byFactor.set(factor, (out = scale(image, factor)));
  return out;
}

/** A segment of a clip: a frame held for `seconds`, with a small sideways drift so the video has motion. */
export interface Segment {
  placements: readonly Placement[];
  seconds: number;
  /** Pixels the people move per second (default 0). */
  drift?: number;
}

/** A person to paste in clips: a head-and-shoulders picture and the face rectangle inside it. */
export type ClipPerson = People['a'];

/** The standard clip's shape: how long A, then the stranger B, then nobody stay, and how the people sway. */
export interface StandardClip {
  seconds: readonly [a: number, b: number, nobody: number];
  /** Pixels the people move sideways per second (default 0). */
  drift?: number;
  /** Face width of A and of B, px (default 150 each). */
  faceSide?: { a?: number; b?: number };
}

/** The tests' standard clip: A 3 s, B 3 s, nobody 2 s, swaying 4 px/s. */
export const TEST_STANDARD: StandardClip = { seconds: [3, 3, 2], drift: 4 };

/** The standard clip's segments: A, then the stranger B, then nobody, each face in the middle of the frame. */
export function standardSegments(a: ClipPerson, b: ClipPerson, clip: StandardClip = TEST_STANDARD): Segment[] {
  const at = { cx: 320, cy: 220 };
  const [aSeconds, bSeconds, nobody] = clip.seconds;
  return [
    { placements: [{ person: a, faceSide: clip.faceSide?.a ?? 150, ...at }], seconds: aSeconds, drift: clip.drift },
    { placements: [{ person: b, faceSide: clip.faceSide?.b ?? 150, ...at }], seconds: bSeconds, drift: clip.drift },
    { placements: [], seconds: nobody },
  ];
}

/**
 * Encodes segments at `fps` into a file in `dir`: VP8/VP9 as .ivf, H264 (Baseline) as .h264.
 * One key frame a second, so a late viewer starts soon.
 */
export async function encodeClip(dir: string, name: string, segments: readonly Segment[], opts: ClipOptions = {}): Promise<string> {
  const ext = (opts.codec ?? 'VP8') === 'H264' ? 'h264' : 'ivf';
  // Many test files encode the same clip; made once per run of this code (a key of everything the
  // clip is made from), then copied: the frames and their JPEGs are what takes the time in jest.
  const made = await keptFolder(await clipKey(segments, opts), (work) => makeClip(work, segments, opts));
  const out = path.join(dir, `${name}.${ext}`);
  await cp(path.join(made, `clip.${ext}`), out);
  await cp(path.join(made, 'frames'), path.join(dir, `${name}-frames`), { recursive: true });
  return out;
}

/** What encodeClip takes besides the segments. */
export interface ClipOptions {
  codec?: 'VP8' | 'VP9' | 'H264';
  fps?: number;
  bitrate?: string;
  /** Seconds from one key frame to the next (default 1). */
  keyEverySeconds?: number;
  /** Strength of a noise that changes every frame (ffmpeg's noise filter, 0-100; default none): raises the bitrate to the target, as a grainy camera image does. */
  noise?: number;
}

/** A face location as the vision endpoints report it. */
type Located = { location: { left: number; top: number; right: number; bottom: number } };

/**
 * B's face box in face-api's sample1.jpg: the first face `detect` (a sandbox's detect_faces) finds,
 * asked once per run of the sandbox's model code and kept beside the clips, as a score of test files
 * need it and each detection of that large photo takes a second or two of CPU.
 */
export async function faceOfB(detect: (jpeg: Buffer) => Promise<readonly Located[]>): Promise<Rect> {
  await mkdir(TEST_CACHE, { recursive: true, mode: 0o700 });
  const hash = createHash('sha256').update(faceApiSample(1));
  // Resolved, not joined: the sources under jest, the built files when a benchmark runs from dist/.
  for (const file of ['face-model', 'tfjs-runtime']) hash.update(readFileSync(require.resolve(`../../sandbox/vision/model/${file}`)));
  const kept = path.join(TEST_CACHE, `face-of-b-${hash.digest('hex').slice(0, 32)}.json`);
  const known = await readFile(kept, 'utf8').catch(() => undefined);
  if (known) return JSON.parse(known) as Rect;
  const face = rectOf((await detect(faceApiSample(1)))[0].location);
  const work = `${kept}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(work, JSON.stringify(face));
  await rename(work, kept);
  return face;
}

/** Everything a clip is made from: this code, the ffmpeg that encodes it, the options, and each placement's picture. */
async function clipKey(segments: readonly Segment[], opts: ClipOptions): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [__filename, require.resolve('./images')]) hash.update(readFileSync(file));
  hash.update(await ffmpegBinary());
  hash.update(JSON.stringify(opts));
  for (const seg of segments) {
    hash.update(JSON.stringify({ seconds: seg.seconds, drift: seg.drift }));
    for (const p of seg.placements) {
      hash.update(JSON.stringify({ faceSide: p.faceSide, cx: p.cx, cy: p.cy, face: p.person.face, width: p.person.image.width, height: p.person.image.height }));
      hash.update(p.person.image.data);
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** Writes the clip's frames (JPEG) into `folder`/frames and encodes them into `folder`/clip.ivf or clip.h264. */
async function makeClip(folder: string, segments: readonly Segment[], opts: ClipOptions): Promise<void> {
  const fps = opts.fps ?? 10;
  const codec = opts.codec ?? 'VP8';
  const frames = path.join(folder, 'frames');
  await mkdir(frames, { recursive: true });
  let n = 0;
  for (const seg of segments) {
    const count = Math.round(seg.seconds * fps);
    // Identical frames are encoded once and written again under each name.
    let cached: Buffer | undefined;
    for (let i = 0; i < count; i++) {
      let jpeg: Buffer;
      if (seg.drift) {
        const dx = Math.round((seg.drift * i) / fps);
        jpeg = encodeJpeg(frame(seg.placements.map((p) => ({ ...p, cx: p.cx + dx }))), 90);
      } else {
        cached ??= encodeJpeg(frame(seg.placements), 90);
        jpeg = cached;
      }
      await writeFile(path.join(frames, `${String(++n).padStart(4, '0')}.jpg`), jpeg);
    }
  }
  const out = path.join(folder, `clip.${codec === 'H264' ? 'h264' : 'ivf'}`);
  const gop = String(Math.round((opts.keyEverySeconds ?? 1) * fps));
  const enc =
    codec === 'H264'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', gop, ...(opts.keyEverySeconds ? ['-keyint_min', gop, '-sc_threshold', '0'] : []), '-f', 'h264']
      : ['-c:v', codec === 'VP8' ? 'libvpx' : 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-g', gop, '-keyint_min', gop, '-b:v', opts.bitrate ?? '1500k', '-pix_fmt', 'yuv420p', '-f', 'ivf'];
  // With noise, a key frame would be ten times an average frame: a burst of a hundred packets that a
  // loaded loopback loses, and with sparse key frames the stream is then lost until the next one.
  // libvpx keeps it within twice an average frame.
  const noisy = opts.noise ? ['-vf', `noise=alls=${opts.noise}:allf=t`, ...(codec === 'H264' ? [] : ['-max-intra-rate', '200'])] : [];
  await encodeFrames(['-framerate', String(fps), '-i', path.join(frames, '%04d.jpg'), ...noisy, ...enc, out]);
}

let binary: Promise<string> | undefined;

/** The ffmpeg the clips are made with (found as the product finds it, once). */
function ffmpegBinary(): Promise<string> {
  binary ??= findFfmpeg();
  return binary;
}

/** Runs ffmpeg on the clip's frames; rejects with what it said when it fails. */
async function encodeFrames(args: string[]): Promise<void> {
  const bin = await ffmpegBinary();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-nostdin', '-v', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg could not encode the clip: ${err}`))));
  });
}
