import { Agent, fetch } from 'undici';
import { InputError } from '../errors';
import { transportCode } from '../http/error-body';
import { checkImageBytes, checkImageUrl, type ResolvedImage } from './input';

/** Bounds for fetching an image URL on the client side. */
export interface DownloadLimits {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  timeoutMs: number;
}

/**
 * Downloads an image URL so it can be sent as bytes. Used when a comparison mixes a URL with
 * bytes: the service takes either two files or two URLs, never one of each. The transfer is cut
 * off at `maxBytes` and `timeoutMs`, and its own short-lived agent is closed afterwards.
 */
export async function downloadImage(url: string, field: string, limits: DownloadLimits): Promise<ResolvedImage & { kind: 'bytes' }> {
  checkImageUrl(url, field);
  const agent = new Agent({ connect: { timeout: limits.timeoutMs } });
  try {
    const response = await fetch(url, { dispatcher: agent, redirect: 'follow', signal: AbortSignal.timeout(limits.timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      throw new InputError(field, `${field} could not be downloaded: HTTP ${response.status} from ${safeOrigin(url)}`, 'reachable http(s) URL');
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
    if (err instanceof InputError) throw err;
    // Only a code: the transport's own message can quote the whole URL, signature and all.
    throw new InputError(field, `${field} could not be downloaded from ${safeOrigin(url)} (${failureCode(err)})`, `reachable http(s) URL, ${limits.timeoutMs} ms`);
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

function tooLarge(field: string, maxBytes: number): InputError {
  return new InputError(field, `${field} download exceeds ${maxBytes} bytes (the room left under the 4 MiB total)`, `less than ${maxBytes} bytes`);
}

function failureCode(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timed out';
  return transportCode(err) ?? 'network failure';
}

/** Only the origin goes into messages: a URL's path or query may hold a signed token. */
function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the URL';
  }
}
