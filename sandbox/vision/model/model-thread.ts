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
 * The face model's worker thread, owned by one FaceModel: started on the first request, ended by
 * close(). A thread that dies fails the requests it held with an error saying so, and the next request
 * starts a new one: one bad moment (a crash, memory) does not turn every later vision call of a
 * long-running sandbox into an error. The thread keeps the process alive only while it has work.
 */
export class ModelThread {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closing: Promise<void> | undefined;

  /** Sends one request and resolves with the worker's reply; rejects when the thread ends first. */
  request(ask: Ask, transfer: ArrayBuffer[] = []): Promise<ModelReply> {
    if (this.#closing) return Promise.reject(new Error('The face model is closed (the sandbox stopped).'));
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

  /** Ends the thread; requests it still holds fail. Idempotent; later requests fail at once. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const worker = this.#worker;
      if (worker) await worker.terminate();
    })();
    return this.#closing;
  }

  #start(): Worker {
    const worker = new Worker(WORKER_FILE);
    let failure: string | undefined;
    worker.on('message', (reply: ModelReply) => {
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      // An idle thread must not keep the process alive (stop() ends it; a script that never stops still exits).
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
      const reason = this.#closing
        ? 'The face model was closed (the sandbox stopped) before the image was analysed.'
        : `The face model's worker thread stopped (${failure ?? `exit code ${code}`}); the next analysis starts a new one.`;
      const held = [...this.#pending.values()];
      this.#pending.clear();
      for (const p of held) p.reject(new Error(reason));
    });
    return worker;
  }
}
