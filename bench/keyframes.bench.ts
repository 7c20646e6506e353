/**
 * What a shorter key-frame interval costs the cameras the package encodes, against what it gains a
 * viewer. ffmpeg's encoders take no key-frame request while they run (a viewer's PLI cannot be
 * answered), so a new viewer's first video picture waits for the camera's next periodic key frame:
 * on average half the interval, at the 95th percentile 0.95 of it (computed: a viewer joins at a
 * uniformly random moment). The cost is measured: the demo's clip (a face walking in, two people, one,
 * nobody; 17 s at 10 fps, 640x480, looped three times) encoded with the camera's own output options
 * (shared/publish/camera-args.ts: 10 fps, the 800 kbit/s cap, realtime settings) for each interval
 * and codec, as the bit rate it came to; and once more at a fixed quantizer (VP8 q 20, H.264 qp 28),
 * where the extra bits of the key frames show as they are instead of being taken from the picture's
 * quality under the cap.
 * Then the other way to a sooner key frame, key-frame phases (shared/publish/key-frame-phases.ts):
 * the same clip through the camera's options with 1 to 4 encoders side by side (one key frame a
 * second each, staggered), as the CPU that ffmpeg process takes per second of video (its own
 * -benchmark figures, encoding as fast as it can), and the bit rate of the stream sent while no
 * viewer asks (phase 0's), against one encoder.
 * Run: npm run bench:keyframes. The last line is one JSON object. Knob: BENCH_INTERVALS (0.5,1,2,4; none: the phases only).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findFfmpeg } from '../shared/media';
import { encodeArgs, type CameraEncoding } from '../shared/publish/camera-args';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the demo's clip maker is a script of its own
const { makeClip } = require('../../scripts/demo-clip') as { makeClip(dir: string, ffmpeg: string): Promise<{ file: string; fps: number }> };

const INTERVALS = (process.env.BENCH_INTERVALS ?? '0.5,1,2,4').split(',').map(Number).filter((v) => v > 0);
const LOOPS = 3;
const CLIP_SECONDS = 17;

function log(text: string): void {
  process.stderr.write(`[bench:keyframes] ${text}\n`);
}

function run(ffmpeg: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(err) : reject(new Error(`ffmpeg: ${err.slice(-500)}`))));
  });
}

/** CPU seconds (user + system) ffmpeg's -benchmark line reports. */
function cpuSeconds(stderr: string): number {
  const m = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
  if (!m) throw new Error(`no -benchmark line in ffmpeg's output: ${stderr.slice(-300)}`);
  return Number(m[1]) + Number(m[2]);
}

/** The camera's output options with another key-frame interval, written to a file instead of a pipe. */
function cameraArgs(e: CameraEncoding, gop: number, out: string, fixed: boolean): string[] {
  const args = encodeArgs(e, false);
  for (const flag of ['-g', '-keyint_min']) args[args.indexOf(flag) + 1] = String(gop);
  if (fixed) {
    // The cap's place: a fixed quantizer, so every key frame costs what it costs.
    const cap = args.indexOf('-b:v');
    args.splice(cap, 6, ...(e.codec === 'H264' ? ['-qp', '28'] : ['-qmin', '20', '-qmax', '20', '-b:v', '20M']));
  }
  args[args.length - 1] = out;
  return args;
}

async function main(): Promise<void> {
  const ffmpeg = await findFfmpeg();
  if (!ffmpeg) throw new Error('bench:keyframes needs ffmpeg');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-keyframes-'));
  try {
    const clip = await makeClip(dir, ffmpeg);
    const source = path.join(dir, 'source.y4m');
    await run(ffmpeg, ['-v', 'error', '-y', '-i', clip.file, '-pix_fmt', 'yuv420p', source]);
    const seconds = CLIP_SECONDS * LOOPS;
    const rows: Record<string, unknown>[] = [];
    for (const codec of ['VP8', 'H264'] as const) {
      const e: CameraEncoding = { codec, fps: 10, bitRateKbps: 800 };
      const kbps: Record<string, { capped: number; fixed: number }> = {};
      for (const interval of INTERVALS) {
        const gop = Math.max(1, Math.round(interval * e.fps));
        const out: Record<string, number> = {};
        for (const fixed of [false, true]) {
          const file = path.join(dir, `out-${codec}-${gop}-${fixed}`);
          await run(ffmpeg, ['-v', 'error', '-y', '-stream_loop', String(LOOPS - 1), '-i', source, ...cameraArgs(e, gop, file, fixed)]);
          out[fixed ? 'fixed' : 'capped'] = Math.round(((await stat(file)).size * 8) / seconds / 1000);
        }
        kbps[interval] = { capped: out.capped, fixed: out.fixed };
      }
      const base = kbps[1] ?? kbps[INTERVALS[0]];
      for (const interval of INTERVALS) {
        const k = kbps[interval];
        const row = {
          codec,
          keyframe_interval_s: interval,
          kbps_capped: k.capped,
          kbps_fixed_quality: k.fixed,
          bits_vs_1s_pct: Math.round((k.fixed / base.fixed - 1) * 100),
          keyframe_wait_mean_ms: Math.round(interval * 500),
          keyframe_wait_p95_ms: Math.round(interval * 950),
        };
        log(JSON.stringify(row));
        rows.push(row);
      }
    }
    const phaseRows: Record<string, unknown>[] = [];
    for (const codec of ['VP8', 'H264'] as const) {
      let one: { cpu: number; kbps: number } | undefined;
      for (const keyFramePhases of [1, 2, 3, 4]) {
        const e: CameraEncoding = { codec, fps: 10, bitRateKbps: 800, keyFramePhases };
        // Each phase's pipe becomes a file; the first is the stream sent while nobody asks.
        const files: string[] = [];
        const args = encodeArgs(e, false).map((a) => {
          if (!/^pipe:\d$/.test(a)) return a;
          files.push(path.join(dir, `phase-${codec}-${keyFramePhases}-${files.length}`));
          return files[files.length - 1];
        });
        const stderr = await run(ffmpeg, ['-v', 'info', '-benchmark', '-y', '-stream_loop', String(LOOPS - 1), '-i', source, ...args]);
        const cpu = cpuSeconds(stderr) / seconds;
        const kbps = ((await stat(files[0])).size * 8) / seconds / 1000;
        one ??= { cpu, kbps };
        const row = {
          codec,
          key_frame_phases: keyFramePhases,
          cpu_pct_of_core: Math.round(cpu * 1000) / 10,
          cpu_vs_one: Math.round((cpu / one.cpu) * 100) / 100,
          kbps_sent: Math.round(kbps),
          keyframe_wait_after_request_p95_ms: Math.round(950 / keyFramePhases),
        };
        log(JSON.stringify(row));
        phaseRows.push(row);
      }
    }
    process.stdout.write(`${JSON.stringify({ bench: 'keyframes', clip_seconds: seconds, rows, phases: phaseRows })}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:keyframes failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
