/** Counters of a phase switch. */
export interface KeyFramePhaseStats {
  /** Key-frame requests received (a viewer joined, or lost a picture). */
  requests: number;
  /** Requests answered by changing to another phase's key frame. */
  switches: number;
}

/** The most frames one phase is read ahead of the frame being sent; its reading waits beyond that. */
const AHEAD = 32;

/**
 * Sends one of several encodings of the same pictures whose key frames are staggered (phase i of N
 * has its key frames i/N of an interval after phase 0's). An encoder run by ffmpeg takes no key-frame
 * request while it runs; with N phases a request is answered by the first key frame any phase has,
 * so a new viewer waits at most 1/N of the interval instead of all of it. The stream sent stays one
 * stream: it changes phase only at a key frame, which a decoder starts from anyway.
 */
export class KeyFramePhases<T> {
  readonly stats: KeyFramePhaseStats = { requests: 0, switches: 0 };
  readonly #isKey: (frame: T) => boolean;
  #pending = false;

  constructor(isKey: (frame: T) => boolean) {
    this.#isKey = isKey;
  }

  /** Asks for a key frame: the next one any phase has is sent (from then on that phase). */
  request(): void {
    this.stats.requests++;
    this.#pending = true;
  }

  /**
   * The frames to send, read from every phase in step (frame n of each phase is the same picture).
   * Ends when the phase being sent ends; a phase that fails makes it throw. Phases that can be read
   * faster than they play (files) give `pace`, which waits until a frame's time comes (framePacer):
   * each frame is then chosen at the time the Publisher sends it. Chosen as soon as read, a frame
   * waited in the Publisher for its time, and a request made meanwhile missed it.
   */
  async *merge(phases: readonly AsyncIterable<T>[], pace?: (frame: T) => Promise<void>): AsyncGenerator<T> {
    const reading = new PhaseReading(phases);
    let current = 0;
    try {
      for (let n = 0; ; n++) {
        let frame = await reading.frame(current, n);
        if (frame === undefined) return;
        if (pace) await pace(frame);
        if (this.#pending && !this.#isKey(frame)) {
          // Held until every phase has told whether its frame n is a key frame: one frame at most,
          // since one encoder writes every phase's frame n before any frame n + 1.
          for (let p = 0; p < phases.length; p++) {
            if (p === current) continue;
            const other = await reading.frame(p, n);
            if (other !== undefined && this.#isKey(other)) {
              current = p;
              frame = other;
              this.stats.switches++;
              break;
            }
          }
        }
        if (this.#isKey(frame)) this.#pending = false;
        reading.drop(n);
        yield frame;
      }
    } finally {
      reading.stop();
    }
  }
}

/** Every phase read into a short queue of its own, numbered, so frame n of any phase can be awaited. */
class PhaseReading<T> {
  readonly #iterators: AsyncIterator<T>[];
  readonly #queues: { n: number; frame: T }[][];
  readonly #counts: number[];
  readonly #ended: boolean[];
  #failure: { error: unknown } | undefined;
  #stopped = false;
  #sent = -1;
  #wake: (() => void)[] = [];

  constructor(phases: readonly AsyncIterable<T>[]) {
    this.#iterators = phases.map((p) => p[Symbol.asyncIterator]());
    this.#queues = phases.map(() => []);
    this.#counts = phases.map(() => 0);
    this.#ended = phases.map(() => false);
    this.#iterators.forEach((_, i) => void this.#pump(i));
  }

  /** Frame n of phase p, once read; undefined when that phase ended before it. Throws when a phase failed. */
  async frame(p: number, n: number): Promise<T | undefined> {
    for (;;) {
      if (this.#failure) throw this.#failure.error;
      const found = this.#queues[p].find((q) => q.n === n);
      if (found) return found.frame;
      if (this.#ended[p] || this.#counts[p] > n) return undefined;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  /** Frames up to n are done with, in every phase. */
  drop(n: number): void {
    this.#sent = n;
    for (const q of this.#queues) while (q.length > 0 && q[0].n <= n) q.shift();
    this.#notify();
  }

  /** Stops reading: each phase is told so, not awaited (a stalled one may never answer). */
  stop(): void {
    this.#stopped = true;
    this.#notify();
    for (const it of this.#iterators) void Promise.resolve(it.return?.()).catch(() => undefined);
  }

  async #pump(p: number): Promise<void> {
    const it = this.#iterators[p];
    try {
      while (!this.#stopped) {
        // A phase read far ahead (a file) waits for the frames sent to catch up.
        while (!this.#stopped && this.#counts[p] - this.#sent > AHEAD) await new Promise<void>((resolve) => this.#wake.push(resolve));
        if (this.#stopped) return;
        const next = await it.next();
        if (next.done) return;
        const n = this.#counts[p]++;
        if (n > this.#sent) this.#queues[p].push({ n, frame: next.value });
        this.#notify();
      }
    } catch (error) {
      if (!this.#stopped) this.#failure ??= { error };
    } finally {
      this.#ended[p] = true;
      this.#notify();
    }
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const resolve of waiting) resolve();
  }
}
