/** Result of feeding one packet to the reorder buffer. */
export interface ReorderOutput<T> {
  /** Packets now in sequence order, ready for assembly. */
  ready: T[];
  /** Set when packets were given up on: the gap lies just before ready[lostAt]. */
  lostAt?: number;
}

const SEQ_MOD = 0x10000;

/** Distance from a to b in 16-bit sequence space, in [-32768, 32767]. */
export function seqDiff(a: number, b: number): number {
  return ((((b - a) % SEQ_MOD) + SEQ_MOD + 0x8000) % SEQ_MOD) - 0x8000;
}

/**
 * Puts RTP packets back in sequence order. A gap is waited on until `window` later packets have
 * arrived, then declared lost; there is no timer, so nothing stays open when the stream stops.
 */
export class ReorderBuffer<T> {
  private readonly pending = new Map<number, T>();
  private next?: number;

  constructor(
    private readonly seqOf: (packet: T) => number,
    private readonly window = 32,
  ) {}

  /** Adds a packet; returns whatever is now contiguous. Duplicates and late packets are dropped. */
  push(packet: T): ReorderOutput<T> {
    const seq = this.seqOf(packet);
    if (this.next === undefined) this.next = seq;
    const d = seqDiff(this.next, seq);
    if (d < 0) return { ready: [] };
    if (d > 0x4000) {
      // A jump this large is a restarted sender, not loss to wait for.
      this.pending.clear();
      this.next = seq;
    }
    this.pending.set(seq, packet);
    const out = this.drain();
    if (this.pending.size <= this.window) return { ready: out };
    this.next = this.oldestPending();
    const more = this.drain();
    return { ready: [...out, ...more], lostAt: out.length };
  }

  /** Forgets everything buffered. */
  reset(): void {
    this.pending.clear();
    this.next = undefined;
  }

  private drain(): T[] {
    const out: T[] = [];
    for (;;) {
      const p = this.pending.get(this.next as number);
      if (p === undefined) return out;
      this.pending.delete(this.next as number);
      out.push(p);
      this.next = ((this.next as number) + 1) % SEQ_MOD;
    }
  }

  private oldestPending(): number {
    let best: number | undefined;
    for (const seq of this.pending.keys()) {
      if (best === undefined || seqDiff(best, seq) < 0) best = seq;
    }
    return best as number;
  }
}
