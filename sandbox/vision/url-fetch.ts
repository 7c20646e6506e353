import { Agent, fetch } from 'undici';
import { VisionError, tooLong } from './errors';
import { MAX_IMAGE_BYTES } from './limits';

/** Downloads images named by URL in JSON requests, the way the service fetches them itself. */
export class ImageFetcher {
  readonly #agent = new Agent({ connections: 8 });

  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Fetches one image. Only http(s) URLs are followed; any failure is a 400 `image_download_failed`
   * naming the field (never the URL, which may carry a signature). An image at or above 4 MB is a 413.
   */
  async get(field: string, value: unknown): Promise<Buffer> {
    if (typeof value !== 'string' || value === '') {
      throw new VisionError(400, `${field} must be an image URL string`, 'invalid_parameter');
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new VisionError(400, `${field} is not a valid URL`, 'invalid_parameter');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new VisionError(400, `${field} must be an http or https URL`, 'invalid_parameter');
    }
    const failed = (why: string): VisionError =>
      new VisionError(400, `The image at the URL in ${field} could not be downloaded: ${why}.`, 'image_download_failed');
    let response;
    try {
      response = await fetch(url, { dispatcher: this.#agent, redirect: 'follow', signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw failed(timedOut ? `no answer within ${this.#timeoutMs} ms` : 'connection failed');
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw failed(`HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared >= MAX_IMAGE_BYTES) {
      await response.body?.cancel();
      throw tooLong();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body ?? []) {
        size += (chunk as Uint8Array).length;
        // Leaving the loop by a throw cancels the stream; cancel() itself would reject, the
        // stream being locked to this loop's reader.
        if (size >= MAX_IMAGE_BYTES) throw tooLong();
        chunks.push(Buffer.from(chunk as Uint8Array));
      }
    } catch (err) {
      if (err instanceof VisionError) throw err;
      throw failed('the transfer broke off');
    }
    return Buffer.concat(chunks, size);
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await this.#agent.close();
  }
}
