import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ModelReply, ModelRequest } from './face-protocol';

// Beside this file: face-worker.js once built, face-worker.ts when run from sources (Node strips the types).
const WORKER_FILE = path.join(__dirname, `face-worker${path.extname(__filename)}`);

/** Distributes ModelRequest without its id. */
type Ask = ModelRequest extends infer R ? (R extends ModelRequest ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve(reply: ModelReply): void;
  reject(err: Error): void;
}

/**
 * The face model's worker thread: started on the first request, one per process, shared by every
 * sandbox in it, as the model itself was when it ran on the main thread (loading it takes a second:
 * a test process that starts one sandbox after another loads it once). It keeps the process alive only
 * while it has work, and ends with the process. A thread that dies fails the requests it held with an
 * error saying so, and the next request starts a new one: one bad moment (a crash, memory) does not
 * turn every later vision call of a long-running sandbox into an error.
 */
class ModelThread {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  /** Sends one request and resolves with the worker's reply; rejects when the thread ends first. */
  request(ask: Ask, transfer: ArrayBuffer[] = []): Promise<ModelReply> {
    const worker = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    return new Promise<ModelReply>((resolve, reject) => {
      try {
        worker.postMessage({ ...ask, id } as ModelRequest, transfer);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      this.#pending.set(id, { resolve, reject });
      worker.ref();
    });
  }

  #start(): Worker {
    const worker = new Worker(WORKER_FILE);
    let failure: string | undefined;
    worker.on('message', (reply: ModelReply) => {
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      // An idle thread must not keep the process alive.
      if (this.#pending.size === 0) worker.unref();
      pending.resolve(reply);
    });
    // A reply that cannot be read leaves its request unanswerable: end the thread, which fails it.
    worker.on('messageerror', (err) => {
      failure ??= `a reply could not be read: ${err.message}`;
      void worker.terminate();
    });
    // An uncaught error ends the thread; 'exit' follows and fails what it held.
    worker.on('error', (err) => (failure ??= err.message));
    worker.once('exit', (code) => {
      if (this.#worker === worker) this.#worker = undefined;
      const reason = `The face model's worker thread stopped (${failure ?? `exit code ${code}`}); the next analysis starts a new one.`;
      const held = [...this.#pending.values()];
      this.#pending.clear();
      for (const p of held) p.reject(new Error(reason));
    });
    return worker;
  }
}

let shared: ModelThread | undefined;

/** The process's face-model thread (see ModelThread). */
export function modelThread(): { request(ask: Ask, transfer?: ArrayBuffer[]): Promise<ModelReply> } {
  return (shared ??= new ModelThread());
}
