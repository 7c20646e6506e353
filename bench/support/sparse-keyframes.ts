import type { SourceFrame, VideoSource } from '../../shared/publish';

/** A VP8 key frame's first bytes: frame tag (key bit clear, shown), start code, 16x16. */
const KEY_FRAME = Buffer.from([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00]);
/** An inter frame's tag (key bit set) and a few bytes. */
const INTER_FRAME = Buffer.from([0x11, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);

/**
 * Synthetic VP8 with key frames far apart, as a browser encoder sends them: one every
 * `keyframeEveryMs`, and one soon after requestKeyframe() (the publisher's answer to a PLI).
 * The frames are not decodable pictures; the streaming path only reads their key bits.
 */
export class SparseKeyframeSource implements VideoSource {
  readonly codec = 'VP8' as const;
  keyframes = 0;
  requests = 0;
  #pending = true;
  #closed = false;

  readonly #fps: number;
  readonly #keyframeEveryMs: number;

  constructor(fps = 30, keyframeEveryMs = 10_000) {
    this.#fps = fps;
    this.#keyframeEveryMs = keyframeEveryMs;
  }

  /** Asks for a key frame as the next frame. */
  requestKeyframe(): void {
    this.requests++;
    this.#pending = true;
  }

  /** Endless frames on the 90 kHz clock; the publisher paces them. */
  async *frames(): AsyncIterable<SourceFrame> {
    const step = 90_000 / this.#fps;
    const gop = Math.max(1, Math.round((this.#keyframeEveryMs * this.#fps) / 1000));
    for (let i = 0; !this.#closed; i++) {
      const key = this.#pending || i % gop === 0;
      this.#pending = false;
      if (key) this.keyframes++;
      yield { data: key ? KEY_FRAME : INTER_FRAME, timestamp: Math.round(i * step) };
    }
  }

  /** Ends the frames. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }
}
