import { spawn } from 'node:child_process';
import { findFfmpeg } from '../../../shared/media';
import type { EncodedFrame } from '../../../shared/frames';
import { ivfFileHeader, ivfFrame } from '../../../shared/frames';

let cached: Promise<string> | undefined;

/** The ffmpeg binary the tests use (same discovery as the product). */
export function testFfmpeg(): Promise<string> {
  cached ??= findFfmpeg();
  return cached;
}

/** Runs ffmpeg to completion with the given stdin; resolves stdout, stderr and exit code. */
export async function runFfmpeg(args: string[], input?: Buffer): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const bin = await testFfmpeg();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-nostdin', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: err }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

/** Encodes a synthetic test pattern into a VP8 IVF or H264 Annex-B byte stream. */
export async function encodeTestPattern(opts: {
  codec: 'VP8' | 'H264' | 'VP9';
  frames: number;
  width?: number;
  height?: number;
  fps?: number;
  gop?: number;
  /** H264 only: slices per picture. */
  slices?: number;
}): Promise<Buffer> {
  const { width = 320, height = 240, fps = 30, gop = 10 } = opts;
  const src = ['-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=${fps}`, '-frames:v', String(opts.frames)];
  const enc =
    opts.codec === 'H264'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', String(gop)]
          .concat(opts.slices ? ['-slices', String(opts.slices)] : [], ['-f', 'h264'])
      : ['-c:v', opts.codec === 'VP8' ? 'libvpx' : 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-g', String(gop), '-keyint_min', String(gop), '-b:v', '500k', '-f', 'ivf'];
  const r = await runFfmpeg(['-v', 'error', ...src, ...enc, 'pipe:1']);
  if (r.code !== 0) throw new Error(`ffmpeg encode failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * Feeds received frames to ffmpeg's decoder (VP8/VP9 as IVF, H264 as Annex-B) and counts the
 * pictures it decodes; `errors` holds whatever the decoder complained about.
 */
export async function decodeFrames(frames: EncodedFrame[]): Promise<{ decoded: number; errors: string }> {
  if (frames.length === 0) return { decoded: 0, errors: 'no frames' };
  const codec = frames[0].codec;
  let input: Buffer;
  let format: string;
  if (codec === 'H264') {
    input = Buffer.concat(frames.map((f) => f.data));
    format = 'h264';
  } else {
    const first = frames[0];
    const header = ivfFileHeader({ codec, width: first.width ?? 0, height: first.height ?? 0, timebaseDen: 90000, timebaseNum: 1 }, frames.length);
    input = Buffer.concat([header, ...frames.map((f) => ivfFrame(f.data, f.timestamp - first.timestamp))]);
    format = 'ivf';
  }
  const r = await runFfmpeg(['-v', 'error', '-f', format, '-i', 'pipe:0', '-f', 'framecrc', 'pipe:1'], input);
  const decoded = r.stdout
    .toString()
    .split('\n')
    .filter((l) => l.length > 0 && !l.startsWith('#')).length;
  return { decoded, errors: r.code === 0 ? r.stderr.trim() : `exit ${r.code}: ${r.stderr.trim()}` };
}
