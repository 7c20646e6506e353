import { createSecretKey } from 'node:crypto';
import { SrtpSession } from 'werift';
import { applyOnce } from './apply-once';

/** The fields of a werift SRTP cipher this module touches. */
interface CipherKeys {
  srtpSessionKey?: unknown;
  srtcpSessionKey?: unknown;
}

// werift's two SRTP protection profiles and the salt length each takes.
const PROFILES = [
  { id: 0x0001, saltLength: 14 }, // AES_CM_128_HMAC_SHA1_80
  { id: 0x0007, saltLength: 12 }, // AEAD_AES_128_GCM
];
const METHODS = ['encryptRtp', 'decryptRtp', 'encryptRTCP', 'decryptRTCP'] as const;
const WRAPPED = Symbol('srtpKeyObjects');

/**
 * werift's SRTP ciphers hand their session keys to createCipheriv/createDecipheriv as Buffers, once
 * per packet. Node 24 first checks such a key against KeyObject and CryptoKey, which makes every
 * packet's cipher about four times dearer (23 us against 6 us measured here), the largest single
 * cost of receiving a stream. Each cipher's keys become KeyObjects the first time it is used; werift
 * reads them nowhere else. Returns false when werift's ciphers are not where this expects them.
 */
export function useKeyObjectsForSrtp(): boolean {
  return applyOnce('srtpKeyObjects', (patch) => {
    for (const profile of PROFILES) {
      const key = Buffer.alloc(16);
      const salt = Buffer.alloc(profile.saltLength);
      const session = new SrtpSession({ keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt }, profile: profile.id });
      const cipher = (session as unknown as { remoteContext?: { cipher?: CipherKeys } }).remoteContext?.cipher;
      if (!cipher || !Buffer.isBuffer(cipher.srtpSessionKey) || !Buffer.isBuffer(cipher.srtcpSessionKey)) return false;
      const proto = Object.getPrototypeOf(cipher) as Record<string | symbol, unknown>;
      if (METHODS.some((m) => typeof proto[m] !== 'function')) return false;
      if (proto[WRAPPED]) continue;
      patch.value(proto, WRAPPED, true);
      for (const m of METHODS) {
        const original = proto[m] as (...args: unknown[]) => unknown;
        patch.value(proto, m, function (this: CipherKeys, ...args: unknown[]): unknown {
          keyObjects(this);
          return original.apply(this, args);
        });
      }
    }
    return true;
  });
}

function keyObjects(cipher: CipherKeys): void {
  if (Buffer.isBuffer(cipher.srtpSessionKey)) cipher.srtpSessionKey = createSecretKey(cipher.srtpSessionKey);
  if (Buffer.isBuffer(cipher.srtcpSessionKey)) cipher.srtcpSessionKey = createSecretKey(cipher.srtcpSessionKey);
}
