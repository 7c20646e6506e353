import { sleep as n8nSleep, type IAllExecuteFunctions } from 'n8n-workflow';
import type { Sleep } from '../../shared/http/retry';
import { downloadFailure, downloadRefused, privateAddressRefused, tooLarge } from '../../shared/image/download-checks';
import { checkImageBytes, checkImageUrl } from '../../shared/image/input';
import { IMAGE_DOWNLOAD_TIMEOUT_MS } from '../../shared/image/limits';
import { isLoopbackServiceUrl, isPrivateLiteralHost } from '../../shared/image/literal-host';
import type { ImageDownloader } from '../../shared/vision/vision-api';

/** Waits between retries with n8n's own helper (packages n8n verifies may not use timers themselves), cut short by an abort. */
export const hostSleep: Sleep = async (ms, ...signals) => {
  const watched = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (ms <= 0 || watched.some((signal) => signal.aborted)) return;
  let wake = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    wake = resolve;
    for (const signal of watched) signal.addEventListener('abort', wake, { once: true });
  });
  try {
    await Promise.race([n8nSleep(ms), aborted]);
  } finally {
    for (const signal of watched) signal.removeEventListener('abort', wake);
  }
};

/** Redirects an image download follows at most. */
const MAX_REDIRECTS = 5;

/**
 * Downloads an image URL through n8n's request helper (its proxy settings apply), checked like the
 * core's own download. Unless the service itself is on this machine (a local sandbox), a URL, or a
 * redirect, whose host is localhost or a private address written out is refused before any request.
 */
export function hostDownload(ctx: IAllExecuteFunctions, visionUrl?: string): ImageDownloader {
  const allowPrivate = isLoopbackServiceUrl(visionUrl);
  return async (url, field, maxBytes, signal) => {
    checkImageUrl(url, field);
    let response: { statusCode: number; body: unknown; headers?: Record<string, unknown> };
    let at = url;
    for (let hop = 0; ; hop++) {
      if (!allowPrivate && isPrivateLiteralHost(new URL(at).hostname)) throw privateAddressRefused(field, at);
      try {
        response = (await ctx.helpers.httpRequest({
          method: 'GET',
          url: at,
          encoding: 'arraybuffer',
          returnFullResponse: true,
          ignoreHttpStatusErrors: true,
          // Followed here, so that each address is checked before it is asked.
          disableFollowRedirect: true,
          timeout: IMAGE_DOWNLOAD_TIMEOUT_MS,
          abortSignal: signal,
        })) as typeof response;
      } catch (err) {
        throw downloadFailure(field, url, err, IMAGE_DOWNLOAD_TIMEOUT_MS);
      }
      const location = response.headers?.location;
      if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string' || hop === MAX_REDIRECTS) break;
      at = new URL(location, at).href;
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw downloadRefused(field, url, response.statusCode);
    const body = response.body;
    const bytes = Buffer.isBuffer(body) ? body : body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(String(body ?? ''));
    if (bytes.length >= maxBytes) throw tooLarge(field, maxBytes);
    return checkImageBytes(bytes, field);
  };
}
