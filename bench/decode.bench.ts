/**
 * Costs of the watcher's frame path, per stream at 640x480: decoding with each backend and codec,
 * the latency of a wanted picture through ffmpeg, and JPEG / crop / boxes with sharp.
 * - `decode.<backend>.<codec>.ms_per_frame`: wall time per frame when frames are fed as fast as the
 *   decoder takes them (every 8th picture wanted).
 * - `...realtime`: 15 fps fed at real pace for BENCH_SECONDS, one picture in 7.5 wanted (2 fps):
 *   CPU time of this process plus the ffmpeg child per second of video (`cpu_pct`, % of one core),
 *   and wanted-picture latency from decode() to its picture (p50/p95 ms).
 * - `first_picture_ms`: decoder creation to the first key frame's picture.
 * - `pictures`: median ms of encodeJpeg (full frame, q80), cropToJpeg (250x250 -> 200x200),
 *   drawBoxes (two boxes with labels, q80) and grayThumbnail, with the sharp build in use.
 * Run: npm run build && node dist/bench/decode.bench.js. The last line is one JSON object.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createDecoder, FfmpegDecoder, type FrameDecoder } from '../shared/decode';
import { AccessUnitSplitter, IvfReader, parseVp8Frame, parseVp9Frame, type EncodedFrame, type VideoCodec } from '../shared/frames';
import { findFfmpeg } from '../shared/media';
import { cropToJpeg, drawBoxes, encodeJpeg, grayThumbnail, pictureBackend } from '../shared/picture';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const FPS = 15;
const WIDTH = 640;
const HEIGHT = 480;
const CODECS: VideoCodec[] = ['VP8', 'VP9', 'H264'];
const BACKENDS = ['ffmpeg', 'wasm'] as const;

async function run(bin: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-nostdin', '-v', 'error', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg failed: ${err}`))));
  });
}

/** A clip with motion everywhere (moving test pattern plus noise), as a camera's would have. */
async function clip(bin: string, codec: VideoCodec, frames: number): Promise<EncodedFrame[]> {
  const src = ['-f', 'lavfi', '-i', `testsrc2=size=${WIDTH}x${HEIGHT}:rate=${FPS},noise=alls=12:allf=t`, '-frames:v', String(frames), '-pix_fmt', 'yuv420p'];
  const enc: Record<VideoCodec, string[]> = {
    VP8: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1000k', '-g', '60', '-f', 'ivf'],
    VP9: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1000k', '-g', '60', '-f', 'ivf'],
    H264: ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-b:v', '1000k', '-g', '60', '-f', 'h264'],
  };
  const stream = await run(bin, [...src, ...enc[codec], 'pipe:1']);
  const units =
    codec === 'H264'
      ? (() => {
          const s = new AccessUnitSplitter();
          return [...s.push(stream), ...s.flush()];
        })()
      : new IvfReader().push(stream).map((f) => f.data);
  return units.map((data, i) => ({
    codec,
    data,
    isKeyframe: codec === 'VP8' ? parseVp8Frame(data).isKeyframe : codec === 'VP9' ? parseVp9Frame(data).isKeyframe : i % 60 === 0,
    timestamp: i * (90000 / FPS),
    width: WIDTH,
    height: HEIGHT,
  }));
}

/** CPU ms used so far by this process (all threads, so wasm workers too) and the decoder's child. */
async function cpuMs(decoder: FrameDecoder): Promise<number> {
  const self = process.cpuUsage();
  let child = 0;
  const pid = decoder instanceof FfmpegDecoder ? decoder.pid : undefined;
  if (pid) {
    const stat = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    child = ((Number(stat[11]) + Number(stat[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  }
  return (self.user + self.system) / 1000 + child;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const round = (v: number, digits = 2): number => Number(v.toFixed(digits));

async function measureDecoder(backend: 'ffmpeg' | 'wasm', codec: VideoCodec, frames: EncodedFrame[]): Promise<Record<string, unknown>> {
  // As fast as it goes.
  const t0 = performance.now();
  let d = await createDecoder({ codec, backend });
  const first = await d.decode(frames[0], true);
  const firstPictureMs = performance.now() - t0;
  if (!first) throw new Error(`${backend} ${codec}: no first picture`);
  const t1 = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 1; i < frames.length; i++) pending.push(d.decode(frames[i], i % 8 === 0 || i === frames.length - 1));
  await Promise.all(pending);
  const msPerFrame = (performance.now() - t1) / (frames.length - 1);
  await d.close();

  // Real time: 15 fps in, 2 fps out; CPU per second of video and wanted latency.
  d = await createDecoder({ codec, backend });
  const latencies: number[] = [];
  const cpuStart = await cpuMs(d);
  const start = performance.now();
  let wantedSoFar = 0;
  for (let i = 0; i < frames.length; i++) {
    const due = start + (i * 1000) / FPS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const want = Math.floor(((i + 1) * 2) / FPS) > wantedSoFar;
    if (want) {
      wantedSoFar++;
      const at = performance.now();
      void d.decode(frames[i], true).then((p) => {
        if (p) latencies.push(performance.now() - at);
      });
    } else {
      await d.decode(frames[i], false);
    }
  }
  await new Promise((r) => setTimeout(r, 200));
  const videoSeconds = frames.length / FPS;
  const cpu = (await cpuMs(d)) - cpuStart;
  await d.close();
  return {
    first_picture_ms: round(firstPictureMs, 1),
    ms_per_frame: round(msPerFrame),
    realtime: {
      cpu_pct: round(cpu / videoSeconds / 10, 2),
      wanted_latency_ms: { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)), n: latencies.length },
    },
  };
}

async function measurePictures(frames: EncodedFrame[]): Promise<Record<string, unknown>> {
  const d = await createDecoder({ codec: frames[0].codec, backend: 'wasm' });
  const picture = await d.decode(frames[0], true);
  await d.close();
  if (!picture) throw new Error('no picture to encode');
  const box = { left: 200, top: 100, right: 450, bottom: 350 };
  const boxes = [
    { location: box, label: 'Ada Lovelace 0.93' },
    { location: { left: 20, top: 40, right: 150, bottom: 170 }, label: 'unknown', color: '#ffcc00' },
  ];
  const jobs: Record<string, () => unknown> = {
    jpeg_full_ms: () => encodeJpeg(picture),
    crop_ms: () => cropToJpeg(picture, box, { width: 200, height: 200 }),
    boxes_ms: () => drawBoxes(picture, boxes),
    gray_thumbnail_ms: () => grayThumbnail(picture),
  };
  const out: Record<string, unknown> = { backend: pictureBackend() };
  for (const [name, job] of Object.entries(jobs)) {
    for (let i = 0; i < 5; i++) await job();
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await job();
      times.push(performance.now() - t);
    }
    out[name] = round(percentile(times, 50));
  }
  return out;
}

async function main(): Promise<void> {
  const bin = await findFfmpeg();
  const result: Record<string, unknown> = { width: WIDTH, height: HEIGHT, fps_in: FPS, fps_wanted: 2, seconds: SECONDS };
  const decode: Record<string, Record<string, unknown>> = { ffmpeg: {}, wasm: {} };
  let sample: EncodedFrame[] | undefined;
  for (const codec of CODECS) {
    const frames = await clip(bin, codec, SECONDS * FPS);
    sample ??= frames;
    for (const backend of BACKENDS) {
      decode[backend][codec] = await measureDecoder(backend, codec, frames);
      console.log(`${backend} ${codec}: ${JSON.stringify(decode[backend][codec])}`);
    }
  }
  result.decode = decode;
  result.pictures = await measurePictures(sample as EncodedFrame[]);
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
