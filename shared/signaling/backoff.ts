import { backoffDelay } from '../http/retry';
import { sleep } from '../http/sleep';
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
 * Wait before rejoin attempt `attempt` (1-based), in whole ms: the HTTP retries' backoff (full
 * jitter, capped), so many clients dropped at once do not rejoin in step.
 */
export function rejoinDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  return Math.floor(backoffDelay(Math.max(0, attempt - 1), policy, undefined, random));
}

/** What abortable() resolves with when the signal fired first. */
export const ABORTED: unique symbol = Symbol('aborted');

/** Waits for `promise` unless `signal` aborts first, then resolves with ABORTED; a rejection of `promise` passes through. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  return settleOrAbort(promise, signal, () => ABORTED);
}
