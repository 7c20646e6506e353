/** Result of feeding one packet to the reorder buffer. */
export interface ReorderOutput<T> {
  /** Packets now in sequence order, ready for assembly. */
  ready: T[];
  /** Set when packets were given up on: the gap lies just before ready[lostAt]. */
  lostAt?: number;
  /**
   * Set when the sequence numbers jumped so far (either way) that the sender must have restarted or
   * the stream broke off. The buffer has forgotten the old stream; these packets begin the new one:
   * the caller resets its own state and pushes them again.
   */
  restart?: T[];
}

const SEQ_MOD = 0x10000;
/** Forward jumps up to this are loss to wait for; beyond it the stream restarted (RFC 3550 A.1). */
const MAX_DROPOUT = 3000;
/** Packets this far behind are not late retransmissions any more but a restarted sender. */
const MIN_MISORDER = 100;

/** Distance from a to b in 16-bit sequence space, in [-32768, 32767]. */
export function seqDiff(a: number, b: number): number {
  return ((((b - a) % SEQ_MOD) + SEQ_MOD + 0x8000) % SEQ_MOD) - 0x8000;
}

/**
 * Puts RTP packets back in sequence order. A gap is waited on until `window` later packets have
 * arrived, then declared lost; there is no timer, so nothing stays open when the stream stops.
 */
export class ReorderBuffer<T> {
  readonly #pending = new Map<number, T>();
  #next?: number;
  /** A far-off packet seen once; a second one right after it confirms a restart. */
  #probe?: { seq: number; packet: T };
  #lateInARow = 0;
  readonly #maxMisorder: number;
  readonly #seqOf: (packet: T) => number;
  readonly #window: number;

  constructor(seqOf: (packet: T) => number, window = 32) {
    this.#seqOf = seqOf;
    this.#window = window;
    this.#maxMisorder = Math.max(MIN_MISORDER, 2 * window);
  }

  /** Adds a packet; returns whatever is now contiguous. Duplicates and late packets are dropped. */
  push(packet: T): ReorderOutput<T> {
    const seq = this.#seqOf(packet);
    if (this.#next === undefined) this.#next = seq;
    const d = seqDiff(this.#next, seq);
    if (d > MAX_DROPOUT || d < -this.#maxMisorder) {
      // One stray packet must not throw the stream away: only two in a row confirm the jump.
      const probe = this.#probe;
      if (probe && seqDiff(probe.seq, seq) === 1) return this.#restart([probe.packet, packet]);
      this.#probe = { seq, packet };
      return { ready: [] };
    }
    this.#probe = undefined;
    if (d < 0) {
      // Late packets keep coming when the sender restarted just behind the old numbers.
      return ++this.#lateInARow >= this.#window ? this.#restart([packet]) : { ready: [] };
    }
    this.#lateInARow = 0;
    this.#pending.set(seq, packet);
    const out = this.#drain();
    if (this.#pending.size <= this.#window) return { ready: out };
    this.#next = this.#oldestPending();
    const more = this.#drain();
    return { ready: [...out, ...more], lostAt: out.length };
  }

  /** Forgets everything buffered. */
  reset(): void {
    this.#pending.clear();
    this.#next = undefined;
    this.#probe = undefined;
    this.#lateInARow = 0;
  }

  #restart(first: T[]): ReorderOutput<T> {
    this.reset();
    return { ready: [], restart: first };
  }

  #drain(): T[] {
    const out: T[] = [];
    for (;;) {
      const p = this.#pending.get(this.#next as number);
      if (p === undefined) return out;
      this.#pending.delete(this.#next as number);
      out.push(p);
      this.#next = ((this.#next as number) + 1) % SEQ_MOD;
    }
  }

  #oldestPending(): number {
    let best: number | undefined;
    for (const seq of this.#pending.keys()) {
      if (best === undefined || seqDiff(best, seq) < 0) best = seq;
    }
    return best as number;
  }
}
