import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { splitAnnexB } from '../frames/annexb';
import type { EncodedFrame, VideoCodec } from '../frames/types';
import { DecoderFailedError, wrongCodec } from './errors';
import type { FrameDecoder, Picture } from './types';
import type { DecodeRequest, WorkerInit, WorkerReply } from './wasm-protocol';

// Beside this file: wasm-worker.js once built, wasm-worker.ts when run from source (Node strips the types).
const WORKER_FILE = path.join(__dirname, `wasm-worker${path.extname(__filename)}`);

interface Pending {
  resolve: (p: Picture | undefined) => void;
  reject: (err: Error) => void;
  timestamp: number;
}

/** Decodes in WebAssembly (ogv for VP8/VP9, h264decoder for H264 Baseline) in a worker thread of its own. */
export class WasmDecoder implements FrameDecoder {
  readonly backend = 'wasm' as const;
  readonly codec: VideoCodec;
  #worker: Worker;
  #pending = new Map<number, Pending>();
  #nextId = 0;
  #closed?: Promise<void>;
  #failure?: Error;

  private constructor(codec: VideoCodec, worker: Worker) {
    this.codec = codec;
    this.#worker = worker;
    worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
    worker.on('error', (err) => this.#fail(err.message));
    worker.on('exit', (code) => {
      if (!this.#closed) this.#fail(`worker exited with code ${code}`);
    });
  }

  /** Starts the worker and resolves once its decoder is loaded. */
  static async start(codec: VideoCodec): Promise<WasmDecoder> {
    const worker = new Worker(WORKER_FILE, { workerData: { codec } satisfies WorkerInit });
    let onMessage = (_reply: WorkerReply): void => undefined;
    let onError = (_err: Error): void => undefined;
    let onExit = (_code: number): void => undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onMessage = (reply) => {
          if (reply.type === 'ready') resolve();
          else if (reply.type === 'failed') reject(new DecoderFailedError(codec, 'wasm', reply.message));
        };
        onError = (err) => reject(new DecoderFailedError(codec, 'wasm', err.message));
        onExit = (code) => reject(new DecoderFailedError(codec, 'wasm', `worker exited with code ${code}`));
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      });
    } catch (err) {
      await worker.terminate();
      throw err;
    } finally {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    }
    return new WasmDecoder(codec, worker);
  }

  decode(frame: EncodedFrame, want: boolean): Promise<Picture | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#failure) return Promise.reject(this.#failure);
    if (frame.codec !== this.codec) return Promise.reject(wrongCodec(frame.codec, this.codec));
    const id = this.#nextId++;
    // Copies: a frame's Buffer may be a view into a shared pool that must not be transferred.
    const units = this.codec === 'H264' ? splitAnnexB(frame.data).map((u) => new Uint8Array(u)) : [new Uint8Array(frame.data)];
    const request: DecodeRequest = { type: 'decode', id, units, want, width: frame.width, height: frame.height };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, timestamp: frame.timestamp });
      this.#worker.postMessage(request, units.map((u) => u.buffer as ArrayBuffer));
    });
  }

  /** Pictures come from the worker in fresh buffers: nothing to reuse. */
  release(): void {}

  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const p of this.#pending.values()) p.resolve(undefined);
      this.#pending.clear();
      await this.#worker.terminate();
    })();
    return this.#closed;
  }

  #onReply(reply: WorkerReply): void {
    if (reply.type !== 'done') return;
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    const pic = reply.picture;
    // A frame the decoder rejected is a lost picture, not a broken decoder: the next key frame recovers.
    pending.resolve(pic ? { width: pic.width, height: pic.height, format: 'i420', data: pic.data, timestamp: pending.timestamp } : undefined);
  }

  #fail(detail: string): void {
    if (this.#failure || this.#closed) return;
    this.#failure = new DecoderFailedError(this.codec, 'wasm', detail);
    for (const p of this.#pending.values()) p.reject(this.#failure);
    this.#pending.clear();
  }
}
