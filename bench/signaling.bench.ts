import type { EncodedFrame } from '../shared/frames';
import { Publisher, openVideoSource, type VideoSource } from '../shared/publish';
import { SignalingSession } from '../shared/signaling';
import { StreamingClient } from '../shared/streaming';
import { PassiveViewer } from './support/passive-viewer';
import { forkSandbox } from './support/sandbox-child';
import { SparseKeyframeSource } from './support/sparse-keyframes';

// Two figures of the streaming path, all on 127.0.0.1:
// 1. join -> first key frame: a downstream session joins a room where a 640x480 VP8 stream is
//    live; median over JOINS sequential joins (also join -> media connected).
// 2. viewers one core carries: the sandbox (signaling + werift SFU) runs alone in a child process
//    (one JS thread); viewers are added in steps until the worst viewer's frame rate falls below
//    90 % of the source rate or the SFU process uses a whole core. The publisher and the viewers
//    live in this process, so when this side saturates first the report says so.
// The last line printed is one JSON object with every figure.

const JOINS = Number(process.env.BENCH_JOINS ?? 10);
const KEY_JOINS = Number(process.env.BENCH_KEY_JOINS ?? 20);
const SPARSE_KEYFRAME_MS = 10_000;
const STEPS = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96].filter((n) => n <= Number(process.env.BENCH_MAX_VIEWERS ?? 96));
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 3000);
const FPS = 30;
const GOP = 30;
const WIDTH = 640;
const HEIGHT = 480;
const FPS_FLOOR = 0.9;
const CPU_CEILING = 0.95;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A downstream session counting frames. */
class CountingViewer {
  frames = 0;
  firstKeyAt?: number;
  readonly session: SignalingSession;

  constructor(client: StreamingClient, roomId: string) {
    this.session = new SignalingSession({
      role: 'downstream',
      video: { codec_type: 'VP8' },
      getTicket: client.ticketSource(roomId, 'down'),
      loopbackOnly: true,
      rejoin: { baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: 3 },
    });
    this.session.on('frame', (f: EncodedFrame) => {
      this.frames++;
      if (f.isKeyframe && this.firstKeyAt === undefined) this.firstKeyAt = performance.now();
    });
    this.session.on('error', () => undefined);
  }
}

async function waitUntil(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > end) return false;
    await sleep(20);
  }
  return true;
}

async function bench(): Promise<void> {
  const sandbox = await forkSandbox({ streaming: { maxConnections: 1000, maxConnectionsPerChannel: 1000, countDelayMs: 0 } });
  const url = sandbox.url;
  const client = new StreamingClient({ authUrl: url, sfuUrl: url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
  const viewers: CountingViewer[] = [];
  let publisher: Publisher | undefined;
  let source: VideoSource | undefined;
  try {
    const room = await client.createRoom();
    source = await openVideoSource({ testPattern: true, codec: 'VP8', width: WIDTH, height: HEIGHT, fps: FPS, gop: GOP, bitRateKbps: 1000 });
    publisher = new Publisher({ source, getTicket: client.ticketSource(room.id, 'up'), loopbackOnly: true });
    publisher.on('error', () => undefined);
    await publisher.start();
    await sleep(1000);

    // 1. join -> first key frame
    const toConnected: number[] = [];
    const toKeyframe: number[] = [];
    for (let i = 0; i < JOINS; i++) {
      // Joins right after one another would line up with the GOP; a random pause spreads them over it.
      await sleep(Math.random() * (1000 * GOP) / FPS);
      const v = new CountingViewer(client, room.id);
      const t0 = performance.now();
      await v.session.start();
      toConnected.push(performance.now() - t0);
      if (await waitUntil(() => v.firstKeyAt !== undefined, 10_000)) toKeyframe.push((v.firstKeyAt as number) - t0);
      await v.session.close();
      console.log(`join ${i + 1}/${JOINS}: connected ${toConnected.at(-1)?.toFixed(0)} ms, first key frame ${toKeyframe.at(-1)?.toFixed(0) ?? '-'} ms`);
    }

    // 1b. join -> first key frame, key frames 10 s apart, a viewer that never sends a PLI
    const sparse = await sparseKeyframeJoins(client);

    // 2. viewers carried
    const steps: Record<string, number | string>[] = [];
    let carried = 0;
    let sfuCpuAtCarried = 0;
    let limitedBy = `step list exhausted (${STEPS.at(-1)} viewers)`;
    for (const target of STEPS) {
      while (viewers.length < target) {
        const v = new CountingViewer(client, room.id);
        viewers.push(v);
        await v.session.start().catch(() => undefined);
      }
      await waitUntil(() => viewers.every((v) => v.firstKeyAt !== undefined), 10_000);
      // Joining is CPU-heavy (DTLS); let the publisher's pacing settle before measuring.
      await sleep(1500);
      const counts0 = viewers.map((v) => v.frames);
      const sent0 = publisher.stats.frames;
      const sfu0 = await sandbox.cpuUsage();
      const own0 = process.cpuUsage();
      const t0 = performance.now();
      await sleep(WINDOW_MS);
      const wall = performance.now() - t0;
      const sfu1 = await sandbox.cpuUsage();
      const own = process.cpuUsage(own0);
      const sourceFps = ((publisher.stats.frames - sent0) * 1000) / wall;
      const fps = viewers.map((v, i) => ((v.frames - counts0[i]) * 1000) / wall);
      const sfuCpu = (sfu1.user - sfu0.user + sfu1.system - sfu0.system) / 1000 / wall;
      const ownCpu = (own.user + own.system) / 1000 / wall;
      const step = {
        viewers: target,
        sourceFps: +sourceFps.toFixed(1),
        minViewerFps: +Math.min(...fps).toFixed(1),
        medianViewerFps: +median(fps).toFixed(1),
        sfuCpuCores: +sfuCpu.toFixed(2),
        publisherAndViewersCpuCores: +ownCpu.toFixed(2),
      };
      steps.push(step);
      console.log(JSON.stringify(step));
      // The encoder shares the machine: if it falls behind, the step says nothing about the SFU.
      const sourceOk = sourceFps >= FPS_FLOOR * FPS;
      const fpsOk = sourceOk && Math.min(...fps) >= FPS_FLOOR * sourceFps;
      if (fpsOk) {
        carried = target;
        sfuCpuAtCarried = sfuCpu;
      }
      if (!fpsOk || sfuCpu >= CPU_CEILING || ownCpu >= CPU_CEILING) {
        limitedBy = !sourceOk
          ? `the source encoder fell behind (${sourceFps.toFixed(1)} fps) at ${target} viewers: machine busy`
          : !fpsOk
            ? `worst viewer below ${FPS_FLOOR * 100}% of the source rate at ${target} viewers`
            : sfuCpu >= CPU_CEILING
              ? `SFU process at ${(sfuCpu * 100).toFixed(0)}% of one core at ${target} viewers`
              : `the measuring process (publisher + viewers) saturated its core at ${target} viewers, before the SFU`;
        break;
      }
    }
    const result = {
      bench: 'signaling',
      source: { codec: 'VP8', width: WIDTH, height: HEIGHT, fps: FPS, gop: GOP },
      joins: JOINS,
      joinToConnectedMsMedian: +median(toConnected).toFixed(0),
      joinToKeyframeMsMedian: toKeyframe.length ? +median(toKeyframe).toFixed(0) : null,
      sparseKeyframes: sparse,
      viewersCarriedByOneSfuCore: carried,
      limitedBy,
      sfuCpuCoresAtThatCount: +sfuCpuAtCarried.toFixed(2),
      // Only meaningful when the measuring side, not the SFU, set the limit: SFU cost grows about linearly.
      extrapolatedViewersAtFullSfuCore: carried && sfuCpuAtCarried > 0 ? Math.floor((carried * CPU_CEILING) / sfuCpuAtCarried) : null,
      steps,
    };
    console.log(JSON.stringify(result));
  } finally {
    for (const v of viewers) await v.session.close();
    await publisher?.close();
    await source?.close();
    await client.close();
    await sandbox.stop();
  }
}

/**
 * Joins passive viewers one after another to a room whose publisher sends a key frame every 10 s
 * and one on request, and times join -> first key frame. The pauses between joins are random over
 * the whole interval, so a join can fall anywhere between two of the publisher's own key frames.
 */
async function sparseKeyframeJoins(client: StreamingClient): Promise<Record<string, number | null>> {
  const room = await client.createRoom();
  const source = new SparseKeyframeSource(FPS, SPARSE_KEYFRAME_MS);
  const publisher = new Publisher({ source, getTicket: client.ticketSource(room.id, 'up'), loopbackOnly: true });
  publisher.on('error', () => undefined);
  publisher.on('keyframeRequest', () => source.requestKeyframe());
  const toKeyframe: number[] = [];
  const connectedToKeyframe: number[] = [];
  let missed = 0;
  try {
    await publisher.start();
    await sleep(1000);
    const requestsBefore = source.requests;
    for (let i = 0; i < KEY_JOINS; i++) {
      await sleep((Math.random() * SPARSE_KEYFRAME_MS) / 4);
      const ticket = await client.createTicket(room.id, 'down');
      const t0 = performance.now();
      const viewer = await PassiveViewer.join(ticket);
      const connectedAt = performance.now();
      const got = await waitUntil(() => viewer.firstKeyAt !== undefined, 2 * SPARSE_KEYFRAME_MS);
      await viewer.close();
      if (got && viewer.firstKeyAt !== undefined) {
        toKeyframe.push(viewer.firstKeyAt - t0);
        connectedToKeyframe.push(viewer.firstKeyAt - connectedAt);
      } else {
        missed++;
      }
      console.log(`sparse key frames, join ${i + 1}/${KEY_JOINS}: connected ${(connectedAt - t0).toFixed(0)} ms, first key frame ${got ? toKeyframe.at(-1)?.toFixed(0) : '-'} ms`);
    }
    const result = {
      keyframeEveryMs: SPARSE_KEYFRAME_MS,
      joins: KEY_JOINS,
      withoutKeyframe: missed,
      joinToKeyframeMsP50: toKeyframe.length ? +percentile(toKeyframe, 50).toFixed(0) : null,
      joinToKeyframeMsP95: toKeyframe.length ? +percentile(toKeyframe, 95).toFixed(0) : null,
      connectedToKeyframeMsP95: connectedToKeyframe.length ? +percentile(connectedToKeyframe, 95).toFixed(0) : null,
      keyframeRequestsPerJoin: +((source.requests - requestsBefore) / KEY_JOINS).toFixed(1),
    };
    console.log(JSON.stringify({ sparseKeyframes: result }));
    return result;
  } finally {
    await publisher.close();
    await source.close();
    await client.deleteRoom(room.id).catch(() => undefined);
  }
}

bench().catch((err: unknown) => {
  console.error('bench failed:', err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
