import { ClientError, codedError } from '../errors';

/** Codes of WatchError: what part of the watcher failed. */
export const WATCH_ERROR_CODES = ['stopped', 'start_failed', 'decode_failed', 'analysis_failed', 'quota_exceeded', 'api_failed'] as const;

/** A code of WatchError. */
export type WatchErrorCode = (typeof WATCH_ERROR_CODES)[number];

/** A failure of the watcher itself (not of an API call or of signaling). */
export class WatchError extends codedError<WatchErrorCode>('WatchError') {}

/** Wraps anything thrown into a ClientError (the package never lets a plain Error out of an event). */
export function asClientError(err: unknown, code: WatchErrorCode): ClientError {
  if (err instanceof ClientError) return err;
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new WatchError(code, text.slice(0, 300));
}
