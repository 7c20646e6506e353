import { ClientError } from '../errors';

/** A failure of the watcher itself (not of an API call or of signaling). */
export class WatchError extends ClientError {
  override readonly name: string = 'WatchError';

  /** code: e.g. 'stopped', 'decode_failed', 'analysis_failed', 'start_failed'; retryable: whether waiting could help. */
  constructor(code: string, message: string, options: { retryable?: boolean } = {}) {
    super(message, { code, retryable: options.retryable ?? false });
  }
}

/** Wraps anything thrown into a ClientError (the package never lets a plain Error out of an event). */
export function asClientError(err: unknown, code: string): ClientError {
  if (err instanceof ClientError) return err;
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new WatchError(code, text.slice(0, 300));
}
