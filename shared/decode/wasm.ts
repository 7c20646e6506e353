import { splitAnnexB } from '../frames/annexb';
import type { EncodedFrame, VideoCodec } from '../frames/types';
import { DecoderFailedError, wrongCodec } from './errors';
import type { FrameDecoder, Picture } from './types';
import { joinDecodeWorker, type DecodeSeat } from './wasm-pool';
import type { WorkerReply } from './wasm-protocol';

interface Pending {
  resolve: (p: Picture | undefined) => void;
  reject: (err: Error) => void;
  timestamp: number;
}

/**
 * Decodes in WebAssembly (ogv for VP8/VP9, h264decoder for H264 Baseline): a wasm instance of its
 * own, in a worker thread shared with other streams' decoders (wasm-pool.ts), which also turns the
 * pictures asked for into RGB.
 */
export class WasmDecoder implements FrameDecoder {
  readonly backend = 'wasm' as const;
  readonly codec: VideoCodec;
  #seat!: DecodeSeat;
  #pending = new Map<number, Pending>();
  #nextSeq = 0;
  #closed?: Promise<void>;
  #failure?: Error;
  #ready?: { resolve: () => void; reject: (err: Error) => void };

  private constructor(codec: VideoCodec) {
    this.codec = codec;
  }

  /** Opens the decoder in a shared worker and resolves once it is loaded. */
  static async start(codec: VideoCodec): Promise<WasmDecoder> {
    const decoder = new WasmDecoder(codec);
    try {
      await new Promise<void>((resolve, reject) => {
        decoder.#ready = { resolve, reject };
        decoder.#seat = joinDecodeWorker({ onReply: (r) => decoder.#onReply(r), onWorkerLost: (detail) => decoder.#fail(detail) });
        decoder.#seat.send({ type: 'open', id: decoder.#seat.id, codec });
      });
    } catch (err) {
      decoder.#seat.leave();
      throw err;
    } finally {
      decoder.#ready = undefined;
    }
    return decoder;
  }

  decode(frame: EncodedFrame, want: boolean): Promise<Picture | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#failure) return Promise.reject(this.#failure);
    if (frame.codec !== this.codec) return Promise.reject(wrongCodec(frame.codec, this.codec));
    const seq = this.#nextSeq++;
    // Copies: a frame's Buffer may be a view into a shared pool that must not be transferred.
    const units = this.codec === 'H264' ? splitAnnexB(frame.data).map((u) => new Uint8Array(u)) : [new Uint8Array(frame.data)];
    return new Promise((resolve, reject) => {
      this.#pending.set(seq, { resolve, reject, timestamp: frame.timestamp });
      this.#seat.send({ type: 'decode', id: this.#seat.id, seq, units, want, width: frame.width, height: frame.height }, units.map((u) => u.buffer as ArrayBuffer));
    });
  }

  /** Pictures come from the worker in fresh buffers: nothing to reuse. */
  release(): void {}

  /** Drops the decoder from its worker (a worker left empty ends); pending calls resolve undefined. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const p of this.#pending.values()) p.resolve(undefined);
      this.#pending.clear();
      this.#seat.leave();
    })();
    return this.#closed;
  }

  #onReply(reply: WorkerReply): void {
    if (reply.type === 'ready') {
      this.#ready?.resolve();
      return;
    }
    if (reply.type === 'failed') {
      this.#ready?.reject(DecoderFailedError.from(this.codec, 'wasm', reply.message));
      return;
    }
    const pending = this.#pending.get(reply.seq);
    if (!pending) return;
    this.#pending.delete(reply.seq);
    const pic = reply.picture;
    // A frame the decoder rejected is a lost picture, not a broken decoder: the next key frame recovers.
    pending.resolve(pic ? { width: pic.width, height: pic.height, format: 'rgb', data: pic.data, timestamp: pending.timestamp } : undefined);
  }

  #fail(detail: string): void {
    this.#ready?.reject(DecoderFailedError.from(this.codec, 'wasm', detail));
    if (this.#failure || this.#closed) return;
    this.#failure = DecoderFailedError.from(this.codec, 'wasm', detail);
    for (const p of this.#pending.values()) p.reject(this.#failure);
    this.#pending.clear();
  }
}
