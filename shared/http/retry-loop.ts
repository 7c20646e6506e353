import { ApiError } from '../errors';
import { backoffDelay, type RetryPolicy, type Sleep } from './retry';

/** What a retry loop needs besides the attempt itself. */
export interface RetryLoop {
  /** Client operation name, used in errors. */
  operation: string;
  policy: RetryPolicy;
  /** How to wait between attempts. */
  sleep: Sleep;
  /** Whether a retryable failure may be repeated for this request (default: always). */
  mayRetry?: (failure: ApiError) => boolean;
  /** The caller's abort signal: no attempt starts after it fired. */
  signal?: AbortSignal;
  /** Fires when the owner (client, token source) is closed: no attempt starts after it. */
  closing?: AbortSignal;
  /** Names the owner in the error after close, e.g. 'token source'. */
  owner?: string;
}

/**
 * Runs `attempt` (given its 0-based number) until it succeeds, fails for good, or the retries
 * of the policy are spent, waiting a jittered backoff (or the server's Retry-After) in between.
 * Only ApiErrors are retried, and only retryable ones; anything else is a bug and goes through.
 */
export async function withRetries<T>(loop: RetryLoop, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 0; ; n += 1) {
    if (loop.closing?.aborted) throw closedError(loop.operation, loop.owner);
    if (loop.signal?.aborted) throw abortedError(loop.operation);
    try {
      return await attempt(n);
    } catch (err) {
      if (loop.signal?.aborted) throw abortedError(loop.operation);
      // close() may have cut the attempt short; say so rather than report the cut.
      if (loop.closing?.aborted) throw closedError(loop.operation, loop.owner);
      if (!(err instanceof ApiError) || !err.retryable || n >= loop.policy.retries) throw err;
      if (loop.mayRetry && !loop.mayRetry(err)) throw err;
      if (err.retryAfterMs !== undefined && err.retryAfterMs > loop.policy.maxDelayMs) throw waitTooLong(err, loop.policy);
      // Woken early by an abort or a close; the check at the top of the loop then ends it.
      await loop.sleep(backoffDelay(n, loop.policy, err.retryAfterMs), loop.signal, loop.closing);
    }
  }
}

/** The error of a call made on (or still retrying in) a closed client or token source. */
export function closedError(operation: string, owner = 'client'): ApiError {
  return ApiError.from({ operation, serviceMessage: `${owner} is closed`, code: 'closed', retryable: false, message: `${operation} failed: the ${owner} was closed` });
}

/** The error of a call whose caller aborted it. */
export function abortedError(operation: string): ApiError {
  return ApiError.from({ operation, serviceMessage: 'aborted by the caller', code: 'ABORTED', retryable: false });
}

/** The failure, re-issued with a message that says when the server wants to be asked again. */
function waitTooLong(err: ApiError, policy: RetryPolicy): ApiError {
  const waitMs = err.retryAfterMs ?? 0;
  const when = new Date(Date.now() + waitMs).toISOString();
  return ApiError.from({
    operation: err.operation,
    status: err.status,
    serviceMessage: err.serviceMessage,
    code: err.code,
    retryable: true,
    retryAfterMs: waitMs,
    message: `${err.message}; the service asks to retry in ${Math.ceil(waitMs / 1000)} s (after ${when}), longer than retry.maxDelayMs (${policy.maxDelayMs} ms), so it was not retried`,
  });
}
