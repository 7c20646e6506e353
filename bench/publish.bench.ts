/**
 * Publishing cameras, measured (issue: bring your camera, §8).
 * - `cpu_ms_per_s`: CPU time of this process plus its ffmpeg children per camera and second of a
 *   640x480 10 fps H.264 RTSP camera, relayed without re-encoding (`--codec H264`) and encoded to VP8
 *   (the default), several cameras at once; `cameras_per_core` is its inverse.
 * - `latency_ms`: from a camera frame leaving the camera reader (ffmpeg's output, in the publisher)
 *   to the same frame decoded by a viewer of the room with the watcher's default decoder, p50/p95,
 *   on 127.0.0.1: what the relay (publisher, SFU, receiver, decoder) adds.
 * The camera is the tests' RTSP camera (test/support/rtsp-camera.ts, serving an H.264 clip encoded
 * once) and the sandbox, each in a child process: neither is counted.
 * Run: npm run bench:publish. The last line is one JSON object. Knobs: BENCH_RELAYED (cameras, 4),
 * BENCH_ENCODED (cameras, 2), BENCH_SECONDS (CPU window, 10).
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDecoder } from '../shared/decode';
import type { EncodedFrame } from '../shared/frames';
import { findFfmpeg } from '../shared/media';
import { CameraPublisher, openCameraSource, Publisher, type VideoSource, type SourceFrame } from '../shared/publish';
import { SignalingSession } from '../shared/signaling';
import { StreamingClient } from '../shared/streaming';
import { forkCamera } from './support/camera-child';
import { forkSandbox } from './support/sandbox-child';

const RELAYED = Number(process.env.BENCH_RELAYED ?? 4);
const ENCODED = Number(process.env.BENCH_ENCODED ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CREDENTIALS = { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' };
const PASSWORD = 'bench-Pa55';

function log(text: string): void {
  process.stderr.write(`[bench:publish] ${text}\n`);
}

/** CPU time (ms) of this process and of its live ffmpeg children (not the camera nor the sandbox), read from /proc. */
function cpuMs(): number {
  const self = process.cpuUsage();
  let total = (self.user + self.system) / 1000;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || !comm.startsWith('ffmpeg')) continue;
      total += (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]) : NaN;
}

/** CPU per camera: `count` cameras publishing for SECONDS, after they are all live. */
async function cpuPerCamera(url: string, sandboxUrl: string, streaming: StreamingClient, codec: 'VP8' | 'H264', count: number): Promise<number> {
  const room = await streaming.createRoom();
  const cams = Array.from({ length: count }, () => new CameraPublisher({ source: url, codec, getTicket: streaming.ticketSource(room.id, 'up'), loopbackOnly: true }));
  try {
    await Promise.all(cams.map((c) => c.start()));
    const deadline = Date.now() + 30_000;
    while (!cams.every((c) => c.status?.state === 'live') && Date.now() < deadline) await sleep(100);
    await sleep(2000);
    const before = cpuMs();
    const frames0 = cams.reduce((n, c) => n + (c.stats?.frames ?? 0), 0);
    await sleep(SECONDS * 1000);
    const used = cpuMs() - before;
    const frames = cams.reduce((n, c) => n + (c.stats?.frames ?? 0), 0) - frames0;
    log(`${count} ${codec === 'H264' ? 'relayed' : 'encoded'} cameras: ${Math.round(used)} ms CPU in ${SECONDS} s, ${frames} frames sent (${sandboxUrl})`);
    return used / SECONDS / count;
  } finally {
    await Promise.all(cams.map((c) => c.stop()));
    await streaming.deleteRoom(room.id).catch(() => undefined);
  }
}

/** Frames a source yields, with the time each left the camera reader. */
class TimedSource implements VideoSource {
  readonly codec;
  readonly sent = new Map<string, number>();
  readonly #inner: VideoSource;
  constructor(inner: VideoSource) {
    this.#inner = inner;
    this.codec = inner.codec;
  }
  async *frames(): AsyncIterable<SourceFrame> {
    for await (const f of this.#inner.frames()) {
      this.sent.set(keyOf(f.data), performance.now());
      if (this.sent.size > 2000) this.sent.delete(this.sent.keys().next().value!);
      yield f;
    }
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** A frame's identity on both sides: its last bytes (the viewer's H.264 unit may gain parameter sets in front). */
function keyOf(data: Buffer): string {
  return data.subarray(Math.max(0, data.length - 32)).toString('hex');
}

/** Camera frame to the viewer's decoded picture, for one camera. */
async function latency(url: string, streaming: StreamingClient, codec: 'VP8' | 'H264'): Promise<{ p50: number; p95: number; samples: number }> {
  const room = await streaming.createRoom();
  const { source } = await openCameraSource({ source: url, codec });
  const timed = new TimedSource(source);
  const publisher = new Publisher({ source: timed, getTicket: streaming.ticketSource(room.id, 'up'), loopbackOnly: true });
  const viewer = new SignalingSession({ role: 'downstream', video: { codec_type: codec }, getTicket: streaming.ticketSource(room.id, 'down'), loopbackOnly: true });
  const decoder = await createDecoder({ codec });
  const samples: number[] = [];
  let measuring = false;
  let chain = Promise.resolve();
  viewer.on('frame', (frame: EncodedFrame) => {
    const sentAt = timed.sent.get(keyOf(frame.data));
    chain = chain.then(async () => {
      const picture = await decoder.decode(frame, true);
      if (picture && measuring && sentAt !== undefined) samples.push(performance.now() - sentAt);
      if (picture) decoder.release(picture);
    });
  });
  try {
    await viewer.start();
    await publisher.start();
    await sleep(4000);
    measuring = true;
    await sleep(SECONDS * 1000);
    measuring = false;
  } finally {
    await publisher.close();
    await timed.close();
    await viewer.close();
    await chain;
    await decoder.close();
    await streaming.deleteRoom(room.id).catch(() => undefined);
  }
  log(`${codec === 'H264' ? 'relayed' : 'encoded'}: ${samples.length} frames matched, decoder ${decoder.backend}`);
  return { p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), samples: samples.length };
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'bench-publish-'));
  const ffmpeg = await findFfmpeg();
  // 640x480 10 fps with motion (the test pattern's moving parts): the RTSP camera's clip, H.264
  // Baseline, a key frame a second, one slice per picture (one encoder thread).
  const clipFile = path.join(work, 'camera.h264');
  await new Promise<void>((resolve, reject) => {
    const c = spawn(
      ffmpeg,
      ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x480:rate=10', '-frames:v', '50', '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-threads', '1', '-g', '10', '-keyint_min', '10', '-sc_threshold', '0', '-f', 'h264', clipFile],
      { stdio: 'inherit' },
    );
    c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
  });
  const camera = await forkCamera({ clipFile, fps: 10, user: 'bench', password: PASSWORD });
  const sandbox = await forkSandbox({ ...CREDENTIALS, streaming: { countDelayMs: 0 } });
  const streaming = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, ...CREDENTIALS });
  try {
    const relayedMs = await cpuPerCamera(camera.url, sandbox.url, streaming, 'H264', RELAYED);
    const encodedMs = await cpuPerCamera(camera.url, sandbox.url, streaming, 'VP8', ENCODED);
    const relayLatency = await latency(camera.url, streaming, 'H264');
    const encodeLatency = await latency(camera.url, streaming, 'VP8');
    const result = {
      bench: 'publish',
      video: '640x480 10 fps H.264 RTSP camera over TCP, 127.0.0.1',
      cpu_ms_per_s: { relayed: Math.round(relayedMs * 10) / 10, encoded_vp8: Math.round(encodedMs * 10) / 10 },
      cameras_per_core: { relayed: Math.floor(1000 / relayedMs), encoded_vp8: Math.floor(1000 / encodedMs) },
      latency_ms: { relayed: relayLatency, encoded_vp8: encodeLatency },
      goals: { relayed_per_core: 20, encoded_per_core: 4, p95_ms: 300 },
      cameras: { relayed: RELAYED, encoded: ENCODED, seconds: SECONDS },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await streaming.close();
    await sandbox.stop();
    await camera.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stdout.write(`${JSON.stringify({ bench: 'publish', error: err instanceof Error ? err.message : String(err) })}\n`);
  process.exitCode = 1;
});
