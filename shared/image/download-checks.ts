import { InputError } from '../errors';
import { IMAGE_DOWNLOAD_TIMEOUT_MS } from './limits';

/** A download past the bytes left for it. */
export function tooLarge(field: string, maxBytes: number): InputError {
  return new InputError('invalid_input', `${field} download exceeds ${maxBytes} bytes (the room left under the 4 MiB total)`, { field, limit: `less than ${maxBytes} bytes` });
}

/** Only the origin goes into messages: a URL's path or query may hold a signed token. */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the URL';
  }
}

/**
 * A download that got no image: no answer (refused, reset, timed out) and an error answer give the
 * same message, so that the package cannot be used to tell a closed port from an open one.
 */
export function downloadFailure(field: string, url: string, _err: unknown, timeoutMs: number): InputError {
  return new InputError('invalid_input', `${field} could not be downloaded from ${safeOrigin(url)}: no image came back (no answer within ${timeoutMs} ms, or an error answer)`, { field, limit: `reachable http(s) URL, ${timeoutMs} ms` });
}

/** A download that was answered with an error status: told like any other failure (see downloadFailure). */
export function downloadRefused(field: string, url: string, _status: number): InputError {
  return downloadFailure(field, url, undefined, IMAGE_DOWNLOAD_TIMEOUT_MS);
}

/** A download to a loopback, link-local or private address, refused before any connection. */
export function privateAddressRefused(field: string, url: string): InputError {
  return new InputError(
    'invalid_input',
    `${field} URL leads to a loopback, link-local or private network address (${safeOrigin(url)}); image URLs are downloaded from there only when the service address is on this machine, or with allowPrivateImageUrls (VS_ALLOW_PRIVATE_IMAGE_URLS=1)`,
    { field, limit: 'a public http(s) URL' },
  );
}
