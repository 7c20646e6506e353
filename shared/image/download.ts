import { fetch, interceptors, type Dispatcher } from 'undici';
import { InputError } from '../errors';
import { defaultDispatcher } from '../http/dispatcher';
import { abortedError } from '../http/retry-loop';
import { checkImageBytes, checkImageUrl, type ResolvedImage } from './input';
import { downloadFailure, privateAddressRefused, tooLarge } from './download-checks';
import { guardedLookup, isPrivateAddress, PRIVATE_ADDRESS_CODE, privateAllowedByEnvironment } from './address-guard';
import { transportCode } from '../http/error-body';

/** Bounds for fetching an image URL on the client side. */
export interface DownloadLimits {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  timeoutMs: number;
}

/** How a download is sent and cancelled. */
export interface DownloadOptions {
  /** undici dispatcher (default: defaultDispatcher()); the caller keeps ownership. */
  dispatcher?: Dispatcher;
  /** Aborting ends the download at once with ApiError code 'ABORTED'. */
  signal?: AbortSignal;
  /** Operation named in the abort error (default 'downloadImage'). */
  operation?: string;
  /**
   * Reach loopback, link-local and private addresses too (default false, or VS_ALLOW_PRIVATE_IMAGE_URLS):
   * by default a URL whose host is, or resolves to, such an address is refused, redirects included.
   */
  allowPrivateAddresses?: boolean;
}

/** Redirects followed at most. */
const MAX_REDIRECTS = 5;

/**
 * Downloads an image URL so it can be sent or drawn on as bytes: when a comparison mixes a URL
 * with bytes (the service takes either two files or two URLs, never one of each), and when boxes
 * are drawn on a URL image. The transfer is cut off at `maxBytes` and `timeoutMs`. Unless allowed,
 * no hop (redirects included) goes to a loopback, link-local or private address; failures to get
 * an answer and error answers give one message, so a download cannot tell a closed port from an open one.
 */
export async function downloadImage(
  url: string,
  field: string,
  limits: DownloadLimits,
  options: DownloadOptions = {},
): Promise<ResolvedImage & { kind: 'bytes' }> {
  checkImageUrl(url, field);
  const operation = options.operation ?? 'downloadImage';
  if (options.signal?.aborted) throw abortedError(operation);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const guarded = !(options.allowPrivateAddresses ?? privateAllowedByEnvironment());
  const base = options.dispatcher ?? defaultDispatcher();
  // The DNS interceptor connects to the address the guard checked (no second lookup to rebind).
  const dispatcher = guarded ? base.compose(interceptors.dns({ lookup: guardedLookup, dualStack: false })) : base;
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const host = new URL(current).hostname;
      if (guarded && (isPrivateAddress(host) || host === 'localhost')) throw privateAddressRefused(field, current);
      const response = await fetch(current, { dispatcher, redirect: 'manual', signal });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (hop >= MAX_REDIRECTS) throw downloadFailure(field, url, undefined, limits.timeoutMs);
        current = checkImageUrl(new URL(location, current).href, field);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw downloadFailure(field, url, undefined, limits.timeoutMs);
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (declared >= limits.maxBytes) {
        await response.body?.cancel();
        throw tooLarge(field, limits.maxBytes);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      if (response.body) {
        for await (const chunk of response.body) {
          total += chunk.byteLength;
          if (total >= limits.maxBytes) throw tooLarge(field, limits.maxBytes);
          chunks.push(Buffer.from(chunk));
        }
      }
      return checkImageBytes(Buffer.concat(chunks, total), field);
    }
  } catch (err) {
    if (options.signal?.aborted) throw abortedError(operation);
    if (err instanceof InputError) throw err;
    if (transportCode(err) === PRIVATE_ADDRESS_CODE) throw privateAddressRefused(field, current);
    // Only the origin: the transport's own message can quote the whole URL, signature and all.
    throw downloadFailure(field, url, err, limits.timeoutMs);
  }
}
