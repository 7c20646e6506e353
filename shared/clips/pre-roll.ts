import { VIDEO_CLOCK, type EncodedFrame } from '../frames/types';

/** A frame as the pre-roll keeps it: with the wall time it came at (epoch ms). */
export interface HeldFrame {
  frame: EncodedFrame;
  at: number;
}

/** What a pre-roll holds and has dropped, for stats and status. */
export interface PreRollStats {
  frames: number;
  bytes: number;
  /** Seconds from the oldest frame held to the newest (the stream's times). */
  seconds: number;
  max_bytes: number;
  /** Frames let go because the bytes bound was reached before the seconds one (sparse key frames). */
  dropped_frames: number;
}

/** How far a frame's stream time may run from its arrival time against the frame before it (a stall, a burst) and still be the same stream. */
const SAME_STREAM_MS = 30_000;

/**
 * Whether `frame`, arriving at `at`, carries on from `prev` in one stream: its time does not go back,
 * and it has not jumped far from the time that passed. A sender that restarted (a new RTP timestamp
 * base, which the receiver passes on as it comes) does not: a clip cannot hold both.
 */
export function continues(prev: HeldFrame, frame: EncodedFrame, at: number): boolean {
  const streamMs = ((frame.timestamp - prev.frame.timestamp) / VIDEO_CLOCK) * 1000;
  return streamMs >= 0 && Math.abs(streamMs - (at - prev.at)) <= SAME_STREAM_MS;
}

/**
 * The last seconds of one stream's encoded frames, as they came, none decoded: from the newest key
 * frame that leaves at least `keepMs` before the newest frame (so a clip can start on a key frame
 * that far back), and at most `maxBytes` (a camera with sparse key frames cannot grow it without
 * limit: whole groups of pictures are let go from the oldest, and counted).
 */
export class PreRoll {
  readonly #keepMs: number;
  readonly #maxBytes: number;
  #held: HeldFrame[] = [];
  #bytes = 0;
  #dropped = 0;

  constructor(keepMs: number, maxBytes: number) {
    this.#keepMs = keepMs;
    this.#maxBytes = maxBytes;
  }

  /** Takes the stream's next frame; frames before the first key frame are of no use and not kept. */
  push(frame: EncodedFrame, at: number): void {
    const prev = this.#held.at(-1);
    const last = prev?.frame;
    // A new codec or picture size, or a sender that restarted, starts over: a clip holds one stream of one of each.
    if (last && (last.codec !== frame.codec || (frame.isKeyframe && (last.width !== frame.width || last.height !== frame.height)) || !continues(prev, frame, at))) this.clear();
    if (this.#held.length === 0 && !frame.isKeyframe) return;
    this.#held.push({ frame, at });
    this.#bytes += frame.data.length;
    this.#trimToTime(frame.timestamp);
    this.#trimToBytes();
  }

  /** The frames held from the newest key frame at or before `at` (epoch ms) minus `backMs`, else from the oldest. */
  since(at: number, backMs: number): HeldFrame[] {
    const from = at - backMs;
    let start = 0;
    for (let i = 0; i < this.#held.length; i++) {
      const h = this.#held[i];
      if (h.at > from) break;
      if (h.frame.isKeyframe) start = i;
    }
    return this.#held.slice(start);
  }

  /** Forgets every frame (the stream restarted or left). */
  clear(): void {
    this.#held = [];
    this.#bytes = 0;
  }

  /** Frames the bytes bound has let go so far. */
  get dropped(): number {
    return this.#dropped;
  }

  get stats(): PreRollStats {
    const first = this.#held[0]?.frame.timestamp;
    const last = this.#held.at(-1)?.frame.timestamp;
    const seconds = first === undefined || last === undefined ? 0 : Math.round(((last - first) / VIDEO_CLOCK) * 10) / 10;
    return { frames: this.#held.length, bytes: this.#bytes, seconds, max_bytes: this.#maxBytes, dropped_frames: this.#dropped };
  }

  // Everything before the newest key frame that is at least keepMs old goes.
  #trimToTime(now: number): void {
    let cut = 0;
    for (let i = 1; i < this.#held.length; i++) {
      const f = this.#held[i].frame;
      if (((now - f.timestamp) / VIDEO_CLOCK) * 1000 < this.#keepMs) break;
      if (f.isKeyframe) cut = i;
    }
    if (cut > 0) this.#drop(cut, false);
  }

  // Over the bound: the oldest group of pictures goes whole (up to the next key frame, or all).
  #trimToBytes(): void {
    while (this.#bytes > this.#maxBytes && this.#held.length > 0) {
      let next = this.#held.findIndex((h, i) => i > 0 && h.frame.isKeyframe);
      if (next < 0) next = this.#held.length;
      this.#drop(next, true);
    }
  }

  #drop(n: number, counted: boolean): void {
    for (const h of this.#held.slice(0, n)) this.#bytes -= h.frame.data.length;
    this.#held = this.#held.slice(n);
    if (counted) this.#dropped += n;
  }
}
