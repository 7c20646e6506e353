import { sleep as n8nSleep, type IAllExecuteFunctions } from 'n8n-workflow';
import type { Sleep } from '../../shared/http/retry';
import { downloadFailure, downloadRefused, tooLarge } from '../../shared/image/download-checks';
import { checkImageBytes, checkImageUrl } from '../../shared/image/input';
import { IMAGE_DOWNLOAD_TIMEOUT_MS } from '../../shared/image/limits';
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

/** Downloads an image URL through n8n's request helper (its proxy settings apply), checked like the core's own download. */
export function hostDownload(ctx: IAllExecuteFunctions): ImageDownloader {
  return async (url, field, maxBytes, signal) => {
    checkImageUrl(url, field);
    let response: { statusCode: number; body: unknown };
    try {
      response = (await ctx.helpers.httpRequest({
        method: 'GET',
        url,
        encoding: 'arraybuffer',
        returnFullResponse: true,
        ignoreHttpStatusErrors: true,
        timeout: IMAGE_DOWNLOAD_TIMEOUT_MS,
        abortSignal: signal,
      })) as { statusCode: number; body: unknown };
    } catch (err) {
      throw downloadFailure(field, url, err, IMAGE_DOWNLOAD_TIMEOUT_MS);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw downloadRefused(field, url, response.statusCode);
    const body = response.body;
    const bytes = Buffer.isBuffer(body) ? body : body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(String(body ?? ''));
    if (bytes.length >= maxBytes) throw tooLarge(field, maxBytes);
    return checkImageBytes(bytes, field);
  };
}
