import { InputError } from '../errors';

/** How failed requests are repeated. */
export interface RetryPolicy {
  /** Repeats after the first attempt (0 disables retrying). */
  retries: number;
  /** Upper bound of the first backoff; doubles with every attempt. */
  baseDelayMs: number;
  /**
   * Cap on any single wait. When a Retry-After asks for longer, the request is not retried: the
   * error says when to try again instead of stalling a workflow.
   */
  maxDelayMs: number;
}

/** Defaults: up to 4 retries, waits drawn from [0, 250 ms · 2^n], never longer than 10 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({ retries: 4, baseDelayMs: 250, maxDelayMs: 10_000 });

/** Fills a partial policy from the defaults and rejects nonsense values. */
export function resolveRetryPolicy(partial?: Partial<RetryPolicy>): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...(partial ?? {}) };
  for (const key of ['retries', 'baseDelayMs', 'maxDelayMs'] as const) {
    const value = policy[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InputError('invalid_input', `retry.${key} must be a finite number >= 0 (got ${String(value)})`, { field: `retry.${key}`, limit: 'finite number >= 0' });
    }
  }
  policy.retries = Math.floor(policy.retries);
  return policy;
}

/**
 * Wait before retry number `attempt` (0-based). Full jitter (a uniform draw between zero and the
 * exponential bound, itself capped by maxDelayMs) spreads clients that failed together so they do
 * not retry in lockstep. A Retry-After from the server is a floor and is not capped here: the
 * retry loop does not retry at all when the server asks for longer than maxDelayMs.
 */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, retryAfterMs?: number, random = Math.random): number {
  // The exponent is capped so that a base of 0 never meets 2^attempt = Infinity (0 * Infinity is NaN).
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt, 30));
  const jittered = random() * bound;
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Reads a Retry-After header (delta seconds or an HTTP date) as milliseconds from `now`. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Waits `ms`, or less when one of `signals` fires; hosts that forbid timers in packages give their own. */
export type Sleep = (ms: number, ...signals: Array<AbortSignal | undefined>) => Promise<void>;
