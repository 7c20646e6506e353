/**
 * A token bucket of API calls: `ratePerSecond` tokens flow in, up to `capacity`. A call is made
 * only with a token in hand; when the bucket is empty the work is skipped (and counted by the caller).
 */
export class CallBudget {
  readonly #rate: number;
  readonly #capacity: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  /** ratePerSecond: Infinity for no limit; capacity defaults to two seconds' worth (at least 3: a detect and two compares). */
  constructor(ratePerSecond: number, options: { capacity?: number; now?: () => number } = {}) {
    this.#rate = ratePerSecond;
    this.#capacity = options.capacity ?? Math.max(3, ratePerSecond * 2);
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = this.#capacity;
    this.#at = this.#now();
  }

  /** Tokens in the bucket now. */
  get available(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Takes `n` tokens if the bucket holds them; false (nothing taken) otherwise. */
  take(n = 1): boolean {
    if (this.#rate === Number.POSITIVE_INFINITY) return true;
    this.#refill();
    if (this.#tokens < n) return false;
    this.#tokens -= n;
    return true;
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#capacity, this.#tokens + ((now - this.#at) / 1000) * this.#rate);
    this.#at = now;
  }
}
