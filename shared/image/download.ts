import { fetch, type Dispatcher } from 'undici';
import { InputError } from '../errors';
import { defaultDispatcher } from '../http/dispatcher';
import { abortedError } from '../http/retry-loop';
import { checkImageBytes, checkImageUrl, type ResolvedImage } from './input';
import { downloadFailure, downloadRefused, tooLarge } from './download-checks';

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
}

/**
 * Downloads an image URL so it can be sent or drawn on as bytes: when a comparison mixes a URL
 * with bytes (the service takes either two files or two URLs, never one of each), and when boxes
 * are drawn on a URL image. The transfer is cut off at `maxBytes` and `timeoutMs`.
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
  try {
    const response = await fetch(url, { dispatcher: options.dispatcher ?? defaultDispatcher(), redirect: 'follow', signal });
    if (!response.ok) {
      await response.body?.cancel();
      throw downloadRefused(field, url, response.status);
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
  } catch (err) {
    if (options.signal?.aborted) throw abortedError(operation);
    if (err instanceof InputError) throw err;
    // Only a code: the transport's own message can quote the whole URL, signature and all.
    throw downloadFailure(field, url, err, limits.timeoutMs);
  }
}
