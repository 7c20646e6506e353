import type { IncomingMessage } from 'node:http';

/** The gateway's hard ceiling on a request body; above it the answer is a plain-text 413. */
export const MAX_BODY_BYTES = 10_485_760;

/** Text of the plain-text 413 the real gateway sends above MAX_BODY_BYTES. */
export const BODY_TOO_LARGE_TEXT = `HTTP content length exceeded ${MAX_BODY_BYTES} bytes.`;

/** Outcome of reading a request body under the size ceiling. */
export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * Reads the whole body, refusing early on a declared or actual size above the ceiling.
 * On refusal the rest of the upload is drained (not buffered) so the 413 can still be read by the client.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      resolve({ ok: false, reason: 'too-large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        settle({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ ok: true, body: Buffer.concat(chunks, size) }));
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) settle({ ok: false, reason: 'aborted' });
    });
  });
}

/** The media type of a request without parameters, lower-cased ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  const value = req.headers['content-type'] ?? '';
  return value.split(';')[0].trim().toLowerCase();
}
