import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 (hex) of a document's content under a host's key: the seal stores put on what they
 * save, so a document written by someone without the key is refused before its faces are acted on.
 */
export function sealText(content: string, key: Uint8Array): string {
  return createHmac('sha256', key).update(content).digest('hex');
}

/** True when `seal` is the seal of `content` under `key` (compared in constant time). */
export function sealHolds(seal: unknown, content: string, key: Uint8Array): boolean {
  if (typeof seal !== 'string') return false;
  const want = Buffer.from(sealText(content, key), 'hex');
  const got = Buffer.from(seal, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
