/**
 * Overhead of the core client over raw undici on detect_faces, against a local sandbox.
 * Two comparisons, each like with like:
 *  - "agent": the client given a plain undici Agent, and raw `dispatcher.request` calls through
 *    another Agent built with the same options;
 *  - "default": the client on its default, proxy-aware dispatcher (EnvHttpProxyAgent, what every
 *    host gets), and raw calls through an EnvHttpProxyAgent built the same way.
 * Both sides send the same small JPEG with the same headers at the same concurrency; batches
 * alternate (client, raw, raw, client, ...) so that drift of the machine hits both sides alike.
 * The sandbox runs in a child process, so the server's work does not share this event loop and
 * what differs between the sides is the client's own cost.
 * The last line printed is one JSON object; each ratio is the median over rounds of client median
 * latency / raw median latency in that round (and the same for CPU time per call).
 */
import * as jpeg from 'jpeg-js';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { TokenSource, VISION_SCOPES } from '../shared/auth';
import { VisionClient } from '../shared/vision';
import { forkSandbox } from './support/sandbox-child';

// A batch of 500 calls lasts about 20 ms, so a few slow moments of the machine decide it: with 20000
// calls in 20 rounds the ratio of the same code ranged 0.88-1.19 over eight runs; with 200000 calls
// in 100 rounds (batches of 1000), 0.92-1.09 over nine, in about 25 s.
const TOTAL_CALLS = positiveInt(process.env.BENCH_CALLS, 200_000);
const ROUNDS = positiveInt(process.env.BENCH_ROUNDS, 100);
const CONCURRENCY = positiveInt(process.env.BENCH_CONCURRENCY, 16);
const PER_BATCH = Math.max(1, Math.floor(TOTAL_CALLS / (2 * ROUNDS)));
const WARMUP_ROUNDS = positiveInt(process.env.BENCH_WARMUP_ROUNDS, 10);

/** The same options as the package's own pools (shared/http/dispatcher.ts). */
const POOL_OPTIONS = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connect: { timeout: 10_000 } };

/** Latencies (ms) of each call and the batch's wall time (ms). */
interface Batch {
  latencies: number[];
  wallMs: number;
  /** CPU time of this process (user + system, µs) spent per call. */
  cpuUsPerCall: number;
}

interface Comparison {
  label: string;
  clientMedianMs: number;
  rawMedianMs: number;
  clientThroughputPerS: number;
  rawThroughputPerS: number;
  clientCpuUsPerCall: number;
  rawCpuUsPerCall: number;
  calls: number;
  ratio: number;
  cpuRatio: number;
}

async function main(): Promise<void> {
  const sandbox = await forkSandbox();
  const clientId = 'sandbox-client';
  const clientSecret = 'sandbox-secret';
  const tokens = new TokenSource({ authUrl: sandbox.url, clientId, clientSecret, scopes: VISION_SCOPES });
  const opened: Array<{ close(): Promise<void> }> = [tokens];
  try {
    const image = smallJpeg();
    const token = await tokens.getToken();
    const headers: Record<string, string> = { authorization: `Bearer ${token.accessToken}`, 'content-type': 'image/jpeg' };
    if (token.apiKey) headers['x-api-key'] = token.apiKey;
    const origin = new URL(sandbox.url).origin;

    const compare = async (label: string, makeDispatcher: () => Dispatcher): Promise<Comparison> => {
      const clientPool = makeDispatcher();
      const rawPool = makeDispatcher();
      const client = new VisionClient({ visionUrl: sandbox.url, tokens, dispatcher: clientPool });
      const mine = [client, clientPool, rawPool];
      opened.push(...mine);
      const viaClient = async (): Promise<void> => {
        await client.detectFaces(image);
      };
      const viaRaw = async (): Promise<void> => {
        const res = await rawPool.request({ origin, method: 'POST', path: '/v1/detect_faces', headers, body: image });
        const body = JSON.parse(await res.body.text()) as { faces?: unknown };
        if (res.statusCode !== 200 || !Array.isArray(body.faces)) throw new Error(`raw call failed with HTTP ${res.statusCode}`);
      };
      try {
        return await runComparison(label, viaClient, viaRaw);
      } finally {
        // The next comparison starts with only its own sockets open on the sandbox.
        for (const thing of mine) await thing.close().catch(() => undefined);
      }
    };

    console.log(`sandbox at ${sandbox.url} (child process)`);
    const agent = await compare('agent', () => new Agent(POOL_OPTIONS));
    const proxyAware = await compare('default', () => new EnvHttpProxyAgent(POOL_OPTIONS));
    for (const c of [agent, proxyAware]) {
      console.log(
        `${c.label.padEnd(8)} client median ${c.clientMedianMs.toFixed(3)} ms, raw ${c.rawMedianMs.toFixed(3)} ms: ratio ${c.ratio.toFixed(3)}; CPU ${c.clientCpuUsPerCall} vs ${c.rawCpuUsPerCall} µs/call: ratio ${c.cpuRatio.toFixed(3)} (${c.calls} calls)`,
      );
    }
    console.log(
      JSON.stringify({
        endpoint: 'detect_faces',
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        agent,
        default: proxyAware,
        ratio: agent.ratio,
        defaultRatio: proxyAware.ratio,
      }),
    );
  } finally {
    for (const thing of opened.reverse()) await thing.close().catch(() => undefined);
    await sandbox.stop();
  }
}

/** Warms both sides up, then alternates timed batches and summarises them. */
async function runComparison(label: string, viaClient: () => Promise<void>, viaRaw: () => Promise<void>): Promise<Comparison> {
  // Untimed calls until both paths are compiled by the JIT and sockets are open on both sides;
  // a cold side would skew the short batches.
  console.log(`${label}: warming up ...`);
  for (let i = 0; i < WARMUP_ROUNDS; i += 1) {
    await runBatch(viaClient, PER_BATCH);
    await runBatch(viaRaw, PER_BATCH);
  }
  const sides: Record<'client' | 'raw', Batch[]> = { client: [], raw: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order: Array<'client' | 'raw'> = round % 2 === 0 ? ['client', 'raw'] : ['raw', 'client'];
    for (const side of order) sides[side].push(await runBatch(side === 'client' ? viaClient : viaRaw, PER_BATCH));
    const last = (side: 'client' | 'raw') => sides[side][sides[side].length - 1];
    console.log(
      `${label} round ${round + 1}/${ROUNDS}: client p50 ${median(last('client').latencies).toFixed(3)} ms, raw p50 ${median(last('raw').latencies).toFixed(3)} ms`,
    );
  }
  const summary = (batches: Batch[]) => ({
    medianMs: median(batches.flatMap((b) => b.latencies)),
    throughputPerS: median(batches.map((b) => (b.latencies.length * 1000) / b.wallMs)),
    cpuUsPerCall: median(batches.map((b) => b.cpuUsPerCall)),
    calls: batches.reduce((n, b) => n + b.latencies.length, 0),
  });
  const c = summary(sides.client);
  const r = summary(sides.raw);
  return {
    label,
    clientMedianMs: round3(c.medianMs),
    rawMedianMs: round3(r.medianMs),
    clientThroughputPerS: Math.round(c.throughputPerS),
    rawThroughputPerS: Math.round(r.throughputPerS),
    clientCpuUsPerCall: Math.round(c.cpuUsPerCall),
    rawCpuUsPerCall: Math.round(r.cpuUsPerCall),
    calls: c.calls + r.calls,
    // Each round's client batch against the raw batch next to it, then the median over rounds: a
    // slow moment of the machine lands in one round instead of tilting the pooled figures.
    ratio: round3(median(sides.client.map((b, i) => median(b.latencies) / median(sides.raw[i].latencies)))),
    cpuRatio: round3(median(sides.client.map((b, i) => b.cpuUsPerCall / sides.raw[i].cpuUsPerCall))),
  };
}

/** Runs `count` calls with CONCURRENCY workers and times each call. */
async function runBatch(call: () => Promise<void>, count: number): Promise<Batch> {
  const latencies: number[] = [];
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      started += 1;
      const t0 = process.hrtime.bigint();
      await call();
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  const cpu = process.cpuUsage(cpu0);
  return { latencies, wallMs: Number(process.hrtime.bigint() - t0) / 1e6, cpuUsPerCall: (cpu.user + cpu.system) / count };
}

/** A 64x64 grey JPEG: tiny, and the same bytes every call so the sandbox answers from its cache. */
function smallJpeg(): Buffer {
  const width = 64;
  const height = 64;
  return Buffer.from(jpeg.encode({ data: Buffer.alloc(width * height * 4, 128), width, height }, 80).data);
}

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function positiveInt(text: string | undefined, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

main().catch((err: unknown) => {
  console.error('bench failed:', err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
