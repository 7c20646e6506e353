/** Keeps the last `size` latencies and gives percentiles of them (bounded memory for long runs). */
export class LatencyWindow {
  readonly #values: number[] = [];
  readonly #size: number;
  #next = 0;
  count = 0;

  constructor(size = 512) {
    this.#size = size;
  }

  /** Records one latency in ms. */
  add(ms: number): void {
    this.count++;
    if (this.#values.length < this.#size) this.#values.push(ms);
    else {
      this.#values[this.#next] = ms;
      this.#next = (this.#next + 1) % this.#size;
    }
  }

  /** The p-th percentile (0..100) of the kept values, nearest rank; undefined when empty. */
  percentile(p: number): number | undefined {
    if (this.#values.length === 0) return undefined;
    const sorted = [...this.#values].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return Math.round(sorted[rank] * 10) / 10;
  }

  /** p50, p95 and count, for stats. */
  summary(): { p50?: number; p95?: number; count: number } {
    return { p50: this.percentile(50), p95: this.percentile(95), count: this.count };
  }
}
