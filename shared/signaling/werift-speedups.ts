import { createSecretKey } from 'node:crypto';
import path from 'node:path';
import { SrtpSession } from 'werift';

/**
 * Two measured fixes for werift's receive path, applied at run time (install scripts, and so patch
 * files, are not available to a package installed into n8n or Node-RED). Each keeps werift's
 * behaviour exactly, is applied once per process to every werift connection in it, and is skipped
 * when werift's insides are not where it expects them (a later werift then runs as it is).
 */
export function speedUpWerift(): { srtpKeyObjects: boolean; fastGetBit: boolean } {
  return { srtpKeyObjects: useKeyObjectsForSrtp(), fastGetBit: useFastGetBit() };
}

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

let keysApplied: boolean | undefined;

/**
 * werift's SRTP ciphers hand their session keys to createCipheriv/createDecipheriv as Buffers, once
 * per packet. Node 24 first checks such a key against KeyObject and CryptoKey, which makes every
 * packet's cipher about four times dearer (23 us against 6 us measured here), the largest single
 * cost of receiving a stream. Each cipher's keys become KeyObjects the first time it is used; werift
 * reads them nowhere else. Returns false when werift's ciphers are not where this expects them.
 */
export function useKeyObjectsForSrtp(): boolean {
  if (keysApplied !== undefined) return keysApplied;
  keysApplied = false;
  try {
    for (const profile of PROFILES) {
      const key = Buffer.alloc(16);
      const salt = Buffer.alloc(profile.saltLength);
      const session = new SrtpSession({ keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt }, profile: profile.id });
      const cipher = (session as unknown as { remoteContext?: { cipher?: CipherKeys } }).remoteContext?.cipher;
      if (!cipher || !Buffer.isBuffer(cipher.srtpSessionKey) || !Buffer.isBuffer(cipher.srtcpSessionKey)) return keysApplied;
      const proto = Object.getPrototypeOf(cipher) as Record<string | symbol, unknown>;
      if (METHODS.some((m) => typeof proto[m] !== 'function')) return keysApplied;
      if (proto[WRAPPED]) continue;
      proto[WRAPPED] = true;
      for (const m of METHODS) {
        const original = proto[m] as (...args: unknown[]) => unknown;
        proto[m] = function (this: CipherKeys, ...args: unknown[]): unknown {
          keyObjects(this);
          return original.apply(this, args);
        };
      }
    }
    keysApplied = true;
  } catch {
    // werift's constructors changed: it keeps working as it is, only slower on Node 24.
  }
  return keysApplied;
}

function keyObjects(cipher: CipherKeys): void {
  if (Buffer.isBuffer(cipher.srtpSessionKey)) cipher.srtpSessionKey = createSecretKey(cipher.srtpSessionKey);
  if (Buffer.isBuffer(cipher.srtcpSessionKey)) cipher.srtcpSessionKey = createSecretKey(cipher.srtcpSessionKey);
}


let getBitApplied: boolean | undefined;

/**
 * werift reads the bit fields of every RTP header (three times a packet on the way in) and RTCP
 * packet with a getBit that goes through strings and arrays: about a fifth of everything the receive
 * path allocates. Replaced by shifts for what it is ever given (a byte, 0-255); anything else still
 * goes to werift's own. Returns false when werift's helper is not where this expects it.
 */
export function useFastGetBit(): boolean {
  if (getBitApplied !== undefined) return getBitApplied;
  getBitApplied = false;
  try {
    // The helper is not exported on its own; its module is found in the CommonJS cache (werift's
    // entry point has loaded it).
    const file = path.join(path.dirname(require.resolve('werift')), '..', '..', 'common', 'src', 'binary.js');
    const binary = require.cache[file]?.exports as { getBit?: GetBit } | undefined;
    const original = binary?.getBit;
    if (typeof original !== 'function' || original(0b0110_0000, 1, 2) !== 3) return getBitApplied;
    binary!.getBit = fastGetBit(original);
    getBitApplied = true;
  } catch {
    // werift moved or froze the helper: it keeps working as it is.
  }
  return getBitApplied;
}

type GetBit = (bits: number, startIndex: number, length?: number) => number;

/** getBit with shifts: bits counted from the most significant of a byte. */
export function fastGetBit(original: GetBit): GetBit {
  return (bits: number, startIndex: number, length = 1): number => {
    if (bits >= 0 && bits <= 255 && (bits | 0) === bits && startIndex >= 0 && length >= 1 && startIndex + length <= 8 && (startIndex | 0) === startIndex && (length | 0) === length) {
      return (bits >> (8 - startIndex - length)) & ((1 << length) - 1);
    }
    return original(bits, startIndex, length);
  };
}
