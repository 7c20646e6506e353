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
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.floor(random() * ceiling);
}
