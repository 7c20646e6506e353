/** True for the error a spent quota gives: HTTP 429 that the client marked not worth retrying. */
export function isQuotaExhausted(err: unknown): boolean {
  const e = err as { status?: unknown; retryable?: unknown } | null | undefined;
  return !!e && e.status === 429 && e.retryable === false;
}

/**
 * Pauses analysis after a spent quota: the first pause lasts `baseMs`, each further one in a row
 * twice as long up to `maxMs`; a successful call ends the series.
 */
export class QuotaPause {
  readonly #baseMs: number;
  readonly #maxMs: number;
  #until = 0;
  #strikes = 0;

  constructor(baseMs: number, maxMs: number) {
    this.#baseMs = baseMs;
    this.#maxMs = Math.max(baseMs, maxMs);
  }

  /** True while analysis is paused at `now`. */
  paused(now: number): boolean {
    return now < this.#until;
  }

  /** Starts a pause at `now` (extends one already running); returns its length in ms. */
  trip(now: number): number {
    const ms = Math.min(this.#maxMs, this.#baseMs * 2 ** this.#strikes);
    this.#strikes++;
    this.#until = Math.max(this.#until, now + ms);
    return ms;
  }

  /** A call succeeded: the next pause starts from baseMs again. */
  succeeded(): void {
    this.#strikes = 0;
  }
}
