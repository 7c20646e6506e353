import { InputError } from '../errors';
import { transportCode } from '../http/error-body';

/** A download past the bytes left for it. */
export function tooLarge(field: string, maxBytes: number): InputError {
  return new InputError(field, `${field} download exceeds ${maxBytes} bytes (the room left under the 4 MiB total)`, `less than ${maxBytes} bytes`);
}

function failureCode(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timed out';
  return transportCode(err) ?? 'network failure';
}

/** Only the origin goes into messages: a URL's path or query may hold a signed token. */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the URL';
  }
}

/** A download that failed without an answer: only a code, since the transport's own message can quote the whole URL. */
export function downloadFailure(field: string, url: string, err: unknown, timeoutMs: number): InputError {
  return new InputError(field, `${field} could not be downloaded from ${safeOrigin(url)} (${failureCode(err)})`, `reachable http(s) URL, ${timeoutMs} ms`);
}

/** A download that was answered with an error status. */
export function downloadRefused(field: string, url: string, status: number): InputError {
  return new InputError(field, `${field} could not be downloaded: HTTP ${status} from ${safeOrigin(url)}`, 'reachable http(s) URL');
}
