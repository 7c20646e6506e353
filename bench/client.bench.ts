/**
 * Overhead of the core client over raw undici on detect_faces, against a local sandbox.
 * Both sides send the same small JPEG with the same headers at the same concurrency; batches
 * alternate (client, raw, raw, client, ...) so that drift of the machine hits both sides alike.
 * The sandbox runs in a child process, so the server's work does not share this event loop and
 * what differs between the sides is the client's own cost.
 * The last line printed is one JSON object; `ratio` is client median latency / raw median latency.
 */
import * as jpeg from 'jpeg-js';
import { Pool } from 'undici';
import { TokenSource, VISION_SCOPES } from '../shared/auth';
import { VisionClient } from '../shared/vision';
import { startSandbox } from '../sandbox';

const TOTAL_CALLS = positiveInt(process.env.BENCH_CALLS, 2000);
const ROUNDS = positiveInt(process.env.BENCH_ROUNDS, 10);
const CONCURRENCY = positiveInt(process.env.BENCH_CONCURRENCY, 16);
const PER_BATCH = Math.max(1, Math.floor(TOTAL_CALLS / (2 * ROUNDS)));
const WARMUP_ROUNDS = positiveInt(process.env.BENCH_WARMUP_ROUNDS, 10);

/** Latencies (ms) of each call and the batch's wall time (ms). */
interface Batch {
  latencies: number[];
  wallMs: number;
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  const clientId = 'sandbox-client';
  const clientSecret = 'sandbox-secret';
  const tokens = new TokenSource({ authUrl: sandbox.url, clientId, clientSecret, scopes: VISION_SCOPES });
  const client = new VisionClient({ visionUrl: sandbox.url, tokens });
  const raw = new Pool(sandbox.url, { keepAliveTimeout: 30_000 });
  try {
    const image = smallJpeg();
    const token = await tokens.getToken();
    const headers: Record<string, string> = { authorization: `Bearer ${token.accessToken}`, 'content-type': 'image/jpeg' };
    if (token.apiKey) headers['x-api-key'] = token.apiKey;

    const viaClient = async (): Promise<void> => {
      await client.detectFaces(image);
    };
    const viaRaw = async (): Promise<void> => {
      const res = await raw.request({ method: 'POST', path: '/v1/detect_faces', headers, body: image });
      const body = (await res.body.json()) as { faces?: unknown };
      if (res.statusCode !== 200 || !Array.isArray(body.faces)) throw new Error(`raw call failed with HTTP ${res.statusCode}`);
    };

    // Warm-up: loads the face model, fills the sandbox's digest cache, opens sockets on both sides
    // and lets the JIT settle, so the first measured round is not penalised.
    console.log(`warming up (sandbox at ${sandbox.url}) ...`);
    // Untimed calls until both paths are compiled by the JIT; a cold side would skew the short batches.
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
        `round ${round + 1}/${ROUNDS}: client p50 ${median(last('client').latencies).toFixed(3)} ms, raw p50 ${median(last('raw').latencies).toFixed(3)} ms`,
      );
    }

    const summary = (batches: Batch[]) => ({
      medianMs: median(batches.flatMap((b) => b.latencies)),
      throughputPerS: median(batches.map((b) => (b.latencies.length * 1000) / b.wallMs)),
      calls: batches.reduce((n, b) => n + b.latencies.length, 0),
    });
    const c = summary(sides.client);
    const r = summary(sides.raw);
    console.log(`client: median ${c.medianMs.toFixed(3)} ms/call, ${c.throughputPerS.toFixed(0)} calls/s (${c.calls} calls)`);
    console.log(`raw:    median ${r.medianMs.toFixed(3)} ms/call, ${r.throughputPerS.toFixed(0)} calls/s (${r.calls} calls)`);
    console.log(
      JSON.stringify({
        endpoint: 'detect_faces',
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        calls: c.calls + r.calls,
        clientMedianMs: round3(c.medianMs),
        rawMedianMs: round3(r.medianMs),
        clientThroughputPerS: Math.round(c.throughputPerS),
        rawThroughputPerS: Math.round(r.throughputPerS),
        ratio: round3(c.medianMs / r.medianMs),
      }),
    );
  } finally {
    await client.close();
    await tokens.close();
    await raw.close();
    await sandbox.stop();
  }
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
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return { latencies, wallMs: Number(process.hrtime.bigint() - t0) / 1e6 };
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
