import { backoffDelay as retryDelay, sleep } from '../http/retry';
import { settleOrAbort } from '../util/abort';

export { sleep };

/** Exponential backoff settings for rejoining. */
export interface BackoffPolicy {
  /** First delay's upper bound, in ms. */
  baseDelayMs: number;
  /** Cap on any delay, in ms. */
  maxDelayMs: number;
}

/**
 * Delay before attempt `attempt` (1-based): "full jitter", uniformly random in
 * [0, min(cap, base * 2^(attempt-1))], so many clients dropped at once do not rejoin in step.
 * The same formula as the HTTP retries (shared/http/retry), in whole ms.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  // The exponent is capped so that a base of 0 never meets 2^attempt = Infinity (0 * Infinity is NaN).
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.floor(retryDelay(exponent, { retries: 0, baseDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs }, undefined, random));
}

/** What abortable() resolves with when the signal fired first. */
export const ABORTED: unique symbol = Symbol('aborted');

/** Waits for `promise` unless `signal` aborts first, then resolves with ABORTED; a rejection of `promise` passes through. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  return settleOrAbort(promise, signal, () => ABORTED);
}
