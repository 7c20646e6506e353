import type { FrameDecoder, Picture } from '../decode';
import type { EncodedFrame } from '../frames/types';

/** What the queue reports to its stream. */
export interface DecodeQueueHooks {
  /** A wanted frame was decoded. */
  picture(picture: Picture, arrival: number): void;
  /** Every frame the decoder accepted. */
  decoded(): void;
  /** Frames thrown away (overflow, or waiting for a key frame). */
  dropped(count: number): void;
  /** The queue needs a key frame to go on (after an overflow or a decoder failure). */
  needKeyframe(): void;
  /** The decoder failed; it is rebuilt at the next key frame. */
  failed(err: unknown): void;
}

/**
 * Feeds every frame of one stream to its decoder, in order (inter frames need their predecessors),
 * asking for a picture only of the frames marked wanted. At most `maxInFlight` frames wait: beyond
 * that the decoder cannot keep up, so the waiting frames are dropped and decoding resumes at the
 * next key frame instead of queueing without bound.
 */
export class DecodeQueue {
  readonly #create: () => Promise<FrameDecoder>;
  readonly #hooks: DecodeQueueHooks;
  readonly #maxInFlight: number;
  #decoder?: Promise<FrameDecoder>;
  /** The decoder once it runs (the one a picture goes back to). */
  #ready?: FrameDecoder;
  #tail: Promise<void> = Promise.resolve();
  #inFlight = 0;
  #generation = 0;
  #needKeyframe = true;
  #closed = false;

  constructor(create: () => Promise<FrameDecoder>, hooks: DecodeQueueHooks, maxInFlight = 30) {
    this.#create = create;
    this.#hooks = hooks;
    this.#maxInFlight = maxInFlight;
  }

  /** Queues one frame; `want` asks for its picture. */
  push(frame: EncodedFrame, want: boolean, arrival: number): void {
    if (this.#closed) return;
    if (this.#needKeyframe && !frame.isKeyframe) {
      this.#hooks.dropped(1);
      return;
    }
    if (this.#inFlight >= this.#maxInFlight) {
      // Frames already queued still decode; the ones after them are useless until a key frame.
      this.#needKeyframe = true;
      this.#hooks.dropped(1);
      this.#hooks.needKeyframe();
      return;
    }
    this.#needKeyframe = false;
    const generation = this.#generation;
    this.#decoder ??= this.#create().then((d) => (this.#ready = d));
    const decoder = this.#decoder;
    this.#inFlight++;
    this.#tail = this.#tail
      .then(async () => {
        if (generation !== this.#generation || this.#closed) return;
        const picture = await (await decoder).decode(frame, want);
        if (generation !== this.#generation) return;
        this.#hooks.decoded();
        if (picture) this.#hooks.picture(picture, arrival);
      })
      .catch((err: unknown) => {
        if (generation !== this.#generation || this.#closed) return;
        this.#hooks.failed(err);
        this.restart();
        this.#hooks.needKeyframe();
      })
      .finally(() => this.#inFlight--);
  }

  /** Gives a picture back to the decoder for reuse once nothing reads it any more. */
  release(picture: Picture): void {
    this.#ready?.release(picture);
  }

  /** Drops the decoder and the queued frames; decoding starts again at the next key frame (a new stream after a rejoin). */
  restart(): void {
    this.#generation++;
    this.#needKeyframe = true;
    const old = this.#decoder;
    this.#decoder = undefined;
    this.#ready = undefined;
    void old?.then((d) => d.close()).catch(() => undefined);
  }

  /** Stops decoding and closes the decoder; resolves when it is closed. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    const old = this.#decoder;
    this.#decoder = undefined;
    this.#ready = undefined;
    // Closing first ends a decode in progress, so the queue cannot hold close() up.
    await old?.then((d) => d.close()).catch(() => undefined);
    await this.#tail;
  }
}
