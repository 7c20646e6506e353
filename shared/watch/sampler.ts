import { VIDEO_CLOCK } from '../frames/types';

/**
 * Decides which frames become samples at a chosen rate, on the frames' own RTP timestamps (not
 * wall time, so a burst of late packets does not yield a burst of samples). A timestamp that goes
 * backwards (a rejoin starts a new stream) starts the rhythm over.
 */
export class FrameSampler {
  readonly #interval: number;
  #next?: number;
  #last?: number;

  /** fps: samples per second, > 0. */
  constructor(fps: number) {
    this.#interval = VIDEO_CLOCK / fps;
  }

  /** True when the frame with this RTP timestamp (90 kHz) is due as a sample. */
  due(timestamp: number): boolean {
    const restart = this.#next === undefined || this.#last === undefined || timestamp < this.#last;
    this.#last = timestamp;
    if (!restart && timestamp < this.#next!) return false;
    // Keep the phase while frames come steadily; after a gap, count from this frame.
    const next = restart ? timestamp + this.#interval : this.#next! + this.#interval;
    this.#next = next <= timestamp ? timestamp + this.#interval : next;
    return true;
  }

  /** Forget the rhythm: the next frame is due. */
  reset(): void {
    this.#next = undefined;
    this.#last = undefined;
  }
}
