/**
 * The wasm decoders' worker threads, shared by the process's streams: about one per core, each
 * holding the wasm decoder instances of several streams. A thread costs more memory than the
 * decoder instance it would otherwise hold alone; decoding stays off the host's event loop.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DecodeRequest, WorkerReply } from './wasm-protocol';

// Beside this file: wasm-worker.js once built, wasm-worker.ts when run from source (Node strips the types).
const WORKER_FILE = path.join(__dirname, `wasm-worker${path.extname(__filename)}`);

/** What a decoder hears from its worker. */
export interface DecodeClient {
  onReply(reply: WorkerReply): void;
  /** The worker ended or failed: every decoder in it is gone. */
  onWorkerLost(detail: string): void;
}

/** A decoder's place in a worker. */
export interface DecodeSeat {
  readonly id: number;
  send(request: DecodeRequest, transfer?: ArrayBuffer[]): void;
  /** Frees the place (the worker drops the decoder); a worker left empty ends. Idempotent. */
  leave(): void;
}

class DecodeWorker {
  readonly thread = new Worker(WORKER_FILE);
  readonly clients = new Map<number, DecodeClient>();
  retiring = false;

  constructor(lost: (worker: DecodeWorker, detail: string) => void) {
    let failure: string | undefined;
    this.thread.on('message', (reply: WorkerReply) => this.clients.get(reply.id)?.onReply(reply));
    this.thread.on('error', (err) => (failure ??= err.message));
    this.thread.once('exit', (code) => {
      if (!this.retiring) lost(this, failure ?? `worker exited with code ${code}`);
    });
  }
}

/**
 * Decoders a worker holds before another worker is started (at most one per core): a stream's
 * decoding takes a few percent of a core, and a thread costs more memory than a decoder instance.
 */
export const DECODERS_PER_WORKER = 4;

const workers: DecodeWorker[] = [];
let nextId = 1;

/** Seats a decoder in the least busy worker, starting another when each holds DECODERS_PER_WORKER and there are fewer than one per core. */
export function joinDecodeWorker(client: DecodeClient): DecodeSeat {
  let worker = workers.reduce<DecodeWorker | undefined>((best, w) => (!best || w.clients.size < best.clients.size ? w : best), undefined);
  if (!worker || (worker.clients.size >= DECODERS_PER_WORKER && workers.length < availableParallelism())) {
    worker = new DecodeWorker((w, detail) => {
      remove(w);
      const clients = [...w.clients.values()];
      w.clients.clear();
      for (const c of clients) c.onWorkerLost(detail);
    });
    workers.push(worker);
  }
  const id = nextId++;
  const seated = worker;
  seated.clients.set(id, client);
  let left = false;
  return {
    id,
    send: (request, transfer) => {
      if (!left) seated.thread.postMessage(request, transfer);
    },
    leave: () => {
      if (left) return;
      left = true;
      if (!seated.clients.delete(id)) return;
      if (seated.clients.size > 0) {
        seated.thread.postMessage({ type: 'close', id } satisfies DecodeRequest);
        return;
      }
      seated.retiring = true;
      remove(seated);
      void seated.thread.terminate();
    },
  };
}

/** The decode workers running now, with their decoder counts (the thread id of each). */
export function decodeWorkers(): { threadId: number; decoders: number }[] {
  return workers.map((w) => ({ threadId: w.thread.threadId, decoders: w.clients.size }));
}

function remove(worker: DecodeWorker): void {
  const at = workers.indexOf(worker);
  if (at >= 0) workers.splice(at, 1);
}
