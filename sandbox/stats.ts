/** Counters the admin API reports. */
export interface SandboxStats {
  /** Every request to /v1/* (token included), counted on arrival. */
  requests: number;
  byEndpoint: Record<string, number>;
  tokensIssued: number;
}

/** Counts /v1 requests per endpoint name. */
export class RequestCounter {
  #total = 0;
  readonly #perEndpoint = new Map<string, number>();

  /** Records one request. */
  count(endpoint: string): void {
    this.#total += 1;
    this.#perEndpoint.set(endpoint, (this.#perEndpoint.get(endpoint) ?? 0) + 1);
  }

  /** A snapshot of the counters. */
  snapshot(tokensIssued: number): SandboxStats {
    return { requests: this.#total, byEndpoint: Object.fromEntries(this.#perEndpoint), tokensIssued };
  }

  /** Sets every counter back to zero. */
  reset(): void {
    this.#total = 0;
    this.#perEndpoint.clear();
  }
}
