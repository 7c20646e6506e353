import { createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { RTCRtpCodecParameters, RTCRtpReceiver, RtpHeader, RtpPacket, SrtpSession } from 'werift';

/** werift releases the speed-ups were checked against (their equality tests and bench:watch). */
export const TESTED_WERIFT_VERSIONS: readonly string[] = ['0.25.2'];

type SpeedupName = 'srtpKeyObjects' | 'fastGetBit' | 'plainRtpObjects' | 'leanEvents' | 'firstCodecMemo' | 'nackLoopEnds' | 'quietPerPacket';

/** Whether the speed-ups run in this process, and why not when they do not. */
export interface WeriftSpeedupsStatus {
  /** The installed werift's version (read from its package.json). */
  version?: string;
  enabled: boolean;
  /** Why they are off: turned off by the host, or a werift version they were not tested with. */
  reason?: string;
}

let switchedOff = false;

/**
 * Turns the speed-ups off for this process (the command line does it for VS_WERIFT_SPEEDUPS=0).
 * It holds for connections made after it; patches already applied to werift stay.
 */
export function disableWeriftSpeedups(): void {
  switchedOff = true;
}

/** Whether the speed-ups run here: off when switched off, or when the installed werift is not one they were tested with. */
export function weriftSpeedupsStatus(): WeriftSpeedupsStatus {
  const version = weriftVersion();
  if (switchedOff) return { version, enabled: false, reason: 'turned off' };
  if (!version || !TESTED_WERIFT_VERSIONS.includes(version)) {
    return { version, enabled: false, reason: `werift ${version ?? '(unknown version)'} is not one the speed-ups were tested with (${TESTED_WERIFT_VERSIONS.join(', ')})` };
  }
  return { version, enabled: true };
}

/**
 * Measured changes to werift's receive path, applied at run time (install scripts, and so patch
 * files, are not available to a package installed into n8n or Node-RED), once per process, to every
 * werift connection in it; only for a werift release they were tested with, and not when switched
 * off. Six keep werift's behaviour and only make it cheaper; one (nackLoopEnds) fixes a werift bug,
 * so it changes behaviour: werift's NACK loop stops once nothing is lost. Each is skipped when
 * werift's insides are not where it expects them.
 */
export function speedUpWerift(): Record<SpeedupName, boolean> {
  if (!weriftSpeedupsStatus().enabled) {
    return { srtpKeyObjects: false, fastGetBit: false, plainRtpObjects: false, leanEvents: false, firstCodecMemo: false, nackLoopEnds: false, quietPerPacket: false };
  }
  return {
    srtpKeyObjects: useKeyObjectsForSrtp(),
    fastGetBit: useFastGetBit(),
    plainRtpObjects: usePlainRtpObjects(),
    leanEvents: useLeanEvents(),
    firstCodecMemo: useFirstCodecMemo(),
    nackLoopEnds: useNackLoopThatEnds(),
    quietPerPacket: useQuietPerPacketCalls(),
  };
}

let installedVersion: string | null | undefined;

/** The installed werift's version: its `exports` hides its package.json, so it is read from the file beside its entry point's package root. */
function weriftVersion(): string | undefined {
  if (installedVersion === undefined) {
    installedVersion = null;
    let dir = path.dirname(require.resolve('werift'));
    for (let i = 0; i < 6 && installedVersion === null; i++, dir = path.dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'werift' && typeof pkg.version === 'string') installedVersion = pkg.version;
      } catch {
        // No package.json at this level: one up.
      }
    }
  }
  return installedVersion ?? undefined;
}

const applied = new Map<string, boolean>();

/** Changes a speed-up makes to werift, recorded so that a speed-up that fails half way is undone. */
interface Patcher {
  /** Assigns `target[key] = value`. */
  value(target: object, key: PropertyKey, value: unknown): void;
  /** Defines `key` on `target` with `descriptor`. */
  define(target: object, key: PropertyKey, descriptor: PropertyDescriptor): void;
}

/**
 * Runs a speed-up's `apply` once per process and remembers whether it took. False when werift's
 * insides are not what it expects, or when applying it threw (werift changed or froze them): what it
 * had changed by then is put back, and werift keeps working as it is, only slower.
 */
function applyOnce(name: string, apply: (patch: Patcher) => boolean): boolean {
  let done = applied.get(name);
  if (done === undefined) {
    applied.set(name, false);
    const undo: (() => void)[] = [];
    const remember = (target: object, key: PropertyKey): void => {
      const before = Object.getOwnPropertyDescriptor(target, key);
      undo.push(() => (before ? Object.defineProperty(target, key, before) : Reflect.deleteProperty(target, key)));
    };
    const patch: Patcher = {
      value(target, key, value) {
        remember(target, key);
        (target as Record<PropertyKey, unknown>)[key] = value;
      },
      define(target, key, descriptor) {
        remember(target, key);
        Object.defineProperty(target, key, descriptor);
      },
    };
    try {
      done = apply(patch);
    } catch {
      done = false;
    }
    if (!done) {
      for (const step of undo.reverse()) {
        try {
          step();
        } catch {
          // A property werift froze meanwhile: nothing more can be put back.
        }
      }
    }
    applied.set(name, done);
  }
  return done;
}

/** The compiled module of werift's `common` package named `name`, from the CommonJS cache (werift's entry point has loaded it). */
function weriftCommonModule(name: string): Record<string, unknown> | undefined {
  const file = path.join(path.dirname(require.resolve('werift')), '..', '..', 'common', 'src', `${name}.js`);
  return require.cache[file]?.exports as Record<string, unknown> | undefined;
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

/**
 * werift reads the bit fields of every RTP header (three times a packet on the way in) and RTCP
 * packet with a getBit that goes through strings and arrays: about a fifth of everything the receive
 * path allocates. Replaced by shifts for what it is ever given (a byte, 0-255); anything else still
 * goes to werift's own. Returns false when werift's helper is not where this expects it.
 */
export function useFastGetBit(): boolean {
  return applyOnce('fastGetBit', (patch) => {
    // The helper is not exported on its own; its module is.
    const binary = weriftCommonModule('binary') as { getBit?: GetBit } | undefined;
    const original = binary?.getBit;
    if (typeof original !== 'function' || original(0b0110_0000, 1, 2) !== 3) return false;
    patch.value(binary!, 'getBit', fastGetBit(original));
    return true;
  });
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

type Fields = Record<string, unknown>;
const ONE_BYTE_EXTENSIONS = 0xbede;
const TWO_BYTE_EXTENSIONS = 0x1000;
type Deserialize = (raw: Buffer) => RtpHeader;

/**
 * werift's RtpHeader and RtpPacket are compiled with one Object.defineProperty per field, which puts
 * a header at about 2.5 us to build (36 ns with plain assignments, measured on Node 24), and the
 * receive path builds three headers and two packets for every RTP packet: parsed before decryption,
 * parsed again after it, and cloned for the track. Those three places get objects of the same
 * class, fields, order and values, built with plain assignments. Returns false when werift's classes
 * are not what this expects.
 */
export function usePlainRtpObjects(): boolean {
  return applyOnce('plainRtpObjects', (patch) => {
    const makeHeader = (): RtpHeader => new PlainHeader();
    const makePacket = (): RtpPacket => new PlainPacket();
    if (!sameFields(makeHeader(), new RtpHeader()) || !sameFields(makePacket(), new RtpPacket(undefined as never, undefined as never))) return false;
    const original = RtpHeader.deSerialize;
    const deSerialize = plainRtpDeserialize(makeHeader, original);
    if (SAMPLE_PACKETS.some((raw) => !sameFields(deSerialize(raw), original(raw)))) return false;
    const packet = (header: RtpHeader, payload: Buffer): RtpPacket => {
      const p = makePacket();
      p.header = header;
      p.payload = payload;
      return p;
    };
    // Static methods stay non-enumerable, as the class declared them.
    patch.define(RtpHeader, 'deSerialize', { value: deSerialize, writable: true, configurable: true });
    patch.define(RtpPacket, 'deSerialize', {
      value: (buf: Buffer): RtpPacket => {
        const header = RtpHeader.deSerialize(buf);
        return packet(header, buf.subarray(header.payloadOffset, buf.length - header.paddingSize));
      },
      writable: true,
      configurable: true,
    });
    patch.define(RtpPacket.prototype, 'clone', {
      value: function clone(this: RtpPacket): RtpPacket {
        return packet(Object.assign(makeHeader(), this.header), this.payload);
      },
      writable: true,
      configurable: true,
    });
    return true;
  });
}

// werift's RtpHeader and RtpPacket as they are after their constructors, fields in the same order,
// assigned one by one so that every object gets the same fast shape.
const PlainHeader = function (this: RtpHeader) {
  this.version = 2;
  this.padding = false;
  this.paddingSize = 0;
  this.extension = false;
  this.marker = false;
  this.payloadOffset = 0;
  this.payloadType = 0;
  this.sequenceNumber = 0;
  this.timestamp = 0;
  this.ssrc = 0;
  this.csrcLength = 0;
  this.csrc = [];
  this.extensionProfile = ONE_BYTE_EXTENSIONS;
  this.extensionLength = undefined;
  this.extensions = [];
} as unknown as new () => RtpHeader;
PlainHeader.prototype = RtpHeader.prototype;

const PlainPacket = function (this: Fields) {
  this.header = undefined;
  this.payload = undefined;
} as unknown as new () => RtpPacket;
PlainPacket.prototype = RtpPacket.prototype;

/** Same prototype, same own fields in the same order, same values. */
function sameFields(a: object, b: object): boolean {
  return Object.getPrototypeOf(a) === Object.getPrototypeOf(b) && isDeepStrictEqual(Object.keys(a), Object.keys(b)) && isDeepStrictEqual(a, b);
}

/**
 * RtpHeader.deSerialize building its header with makeHeader. Gives what werift's gives for every
 * input: packets too short for their CSRCs or their extension block, and extension profiles other
 * than RFC 8285's two, go to werift's own (whose quirks and errors they then get).
 */
export function plainRtpDeserialize(makeHeader: () => RtpHeader, original: Deserialize): Deserialize {
  return (raw: Buffer): RtpHeader => {
    const length = raw.length;
    if (length < 12) return original(raw);
    const first = raw[0]!;
    const csrcCount = first & 0x0f;
    let offset = 12 + 4 * csrcCount;
    if (length < offset) return original(raw);
    const extension = (first & 0x10) !== 0;
    let profile = 0;
    let extensionLength = 0;
    if (extension) {
      if (length < offset + 4) return original(raw);
      profile = raw.readUInt16BE(offset);
      extensionLength = raw.readUInt16BE(offset + 2) * 4;
      if ((profile !== ONE_BYTE_EXTENSIONS && profile !== TWO_BYTE_EXTENSIONS) || offset + 4 + extensionLength > length) return original(raw);
    }
    const h = makeHeader();
    h.version = first >> 6;
    h.padding = (first & 0x20) !== 0;
    h.extension = extension;
    h.csrcLength = csrcCount;
    for (let i = 0; i < csrcCount; i++) h.csrc.push(raw.readUInt32BE(12 + 4 * i));
    h.marker = (raw[1]! & 0x80) !== 0;
    h.payloadType = raw[1]! & 0x7f;
    h.sequenceNumber = raw.readUInt16BE(2);
    h.timestamp = raw.readUInt32BE(4);
    h.ssrc = raw.readUInt32BE(8);
    if (extension) {
      h.extensionProfile = profile as RtpHeader['extensionProfile'];
      h.extensionLength = extensionLength;
      offset += 4;
      offset = profile === ONE_BYTE_EXTENSIONS ? readOneByteExtensions(raw, offset, offset + extensionLength, h.extensions) : readTwoByteExtensions(raw, offset, offset + extensionLength, h.extensions);
    }
    h.payloadOffset = offset;
    if (h.padding) h.paddingSize = raw[length - 1]!;
    return h;
  };
}

type Extensions = RtpHeader['extensions'];

// RFC 8285 section 4.2. Like werift, a header ends at ID 15 and the payload offset is where it stopped.
function readOneByteExtensions(raw: Buffer, offset: number, end: number, out: Extensions): number {
  while (offset < end) {
    const byte = raw[offset]!;
    offset++;
    if (byte === 0) continue; // padding
    const id = byte >> 4;
    if (id === 0xf) break;
    const len = (byte & 0x0f) + 1;
    out.push({ id, payload: raw.subarray(offset, offset + len) });
    offset += len;
  }
  return offset;
}

// RFC 8285 section 4.3. A length byte past the packet reads as werift reads it (undefined).
function readTwoByteExtensions(raw: Buffer, offset: number, end: number, out: Extensions): number {
  while (offset < end) {
    if (raw[offset] === 0) {
      offset++;
      continue;
    }
    const id = raw[offset]!;
    offset++;
    const len = raw[offset] as number;
    offset++;
    out.push({ id, payload: raw.subarray(offset, offset + len) });
    offset += len;
  }
  return offset;
}

// Headers werift's own parser and the plain one must agree on before the plain one is used.
const SAMPLE_PACKETS = [
  Buffer.from('80e0002a0000fa0000000bb8aabbcc', 'hex'),
  Buffer.from('b1600102000000640000000100000007bede0002120a0b30ffdd00112233', 'hex'),
  Buffer.from('9060ffff0000000100000002100000020204aabbccdd0000ff00ee03', 'hex'),
];

/** What this module uses of werift's Event. */
interface WeriftEvent {
  ended: boolean;
  event: { stack: { execute: (...args: unknown[]) => unknown }[]; promiseStack: { execute: (...args: unknown[]) => unknown }[] };
  onerror: (e: unknown) => void;
  execute: (...args: unknown[]) => void;
}
type EventClass = new (...args: unknown[]) => WeriftEvent;

/**
 * werift passes every packet through five or so of its Events, and each execute() starts an async
 * function for its queued (promise) subscribers whether there are any or not: a promise, a closure
 * and a microtask per event per packet, about a sixth of what the receive path allocates. Events
 * made from now on skip that when no queued subscriber is there, which nothing can observe: the
 * async function reads the queue before its first await. Returns false when werift's Event is not
 * what this expects.
 */
export function useLeanEvents(): boolean {
  return applyOnce('leanEvents', (patch) => {
    const events = weriftCommonModule('event');
    const Original = events?.Event as EventClass | undefined;
    if (typeof Original !== 'function') return false;
    const probe = new Original();
    if (typeof probe.execute !== 'function' || !Array.isArray(probe.event?.stack) || !Array.isArray(probe.event?.promiseStack) || typeof probe.onerror !== 'function') return false;
    const Lean = class Event extends Original {
      constructor(...args: unknown[]) {
        super(...args);
        this.execute = leanExecute(this, this.execute);
      }
    };
    patch.value(events!, 'Event', Lean);
    return events!.Event === Lean;
  });
}

/** An Event's execute that hands over to werift's own only when it has queued subscribers to run. */
export function leanExecute(event: WeriftEvent, original: (...args: unknown[]) => void): (...args: unknown[]) => void {
  return (...args: unknown[]): void => {
    if (event.ended) return;
    if (event.event.promiseStack.length > 0) return original(...args);
    for (const item of event.event.stack) item.execute(...args);
    // A subscriber just above may have queued one: werift's own would run it now.
    if (event.event.promiseStack.length > 0) runQueued(event, args);
  };
}

function runQueued(event: WeriftEvent, args: unknown[]): void {
  (async () => {
    for (const item of event.event.promiseStack) await item.execute(...args);
  })().catch((e: unknown) => event.onerror(e));
}

interface Codec {
  payloadType: number;
  rtcpFeedback: { type: string }[];
}
interface Receiver {
  codecs: Record<number, Codec>;
  codecArray: Codec[];
}

/**
 * For every packet werift's receiver asks whether NACK and transport-cc are on, each time listing
 * and sorting all its negotiated codecs to look at the first: the largest single allocation on the
 * receive path. The first codec is kept until werift changes the receiver's codecs (only its
 * prepareReceive and resyncCodecs do). Returns false when the receiver is not what this expects.
 */
export function useFirstCodecMemo(): boolean {
  return applyOnce('firstCodecMemo', (patch) => {
    const proto = RTCRtpReceiver.prototype as unknown as Record<string, unknown>;
    const getter = (name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
    const writers = ['prepareReceive', 'resyncCodecs'] as const;
    if (!getter('codecArray') || !getter('nackEnabled') || !getter('twccEnabled') || writers.some((w) => typeof proto[w] !== 'function')) return false;
    // werift changes a receiver's codecs in place, and only through these two methods: the memo is
    // dropped after each of them (an identity check of the codec list could never notice a change).
    const memo = new WeakMap<object, { first: Codec | undefined }>();
    const firstCodec = (receiver: Receiver): Codec | undefined => {
      let known = memo.get(receiver);
      if (!known) {
        known = { first: receiver.codecArray[0] };
        memo.set(receiver, known);
      }
      return known.first;
    };
    for (const name of writers) {
      const original = proto[name] as (...args: unknown[]) => unknown;
      patch.value(proto, name, function (this: Receiver, ...args: unknown[]): unknown {
        try {
          return original.apply(this, args);
        } finally {
          memo.delete(this);
        }
      });
    }
    // werift's own tests, on the memoised codec.
    const feedback = (type: string) =>
      function (this: Receiver) {
        return firstCodec(this)?.rtcpFeedback.find((f) => f.type === type);
      };
    patch.define(proto, 'nackEnabled', { get: feedback('nack'), configurable: true });
    patch.define(proto, 'twccEnabled', { get: feedback('transport-cc'), configurable: true });
    return true;
  });
}

/** What this module uses of werift's NACK sender. */
interface NackSender {
  sendNack: () => Promise<unknown>;
  lostSeqNumbers: number[];
  mediaSourceSsrc?: number;
  nackLoop?: unknown;
  [ENDS]?: true;
}
const ENDS = Symbol('nackLoopEnds');

/**
 * werift's NACK sender starts a 5 ms loop at a lost packet, meant to stop at the first round that
 * finds nothing lost once it has sent. But a round that finds nothing lost before sending waits on
 * a promise that never settles: when retransmissions recover the losses between two rounds, which is
 * the usual case, the loop runs for the rest of the connection, 200 rounds a second per stream. Such
 * a round now settles at once, so the loop stops as werift means it to, and starts again at the next
 * loss. Returns false when the sender is not what this expects.
 */
export function useNackLoopThatEnds(): boolean {
  return applyOnce('nackLoopEnds', (patch) => {
    const probe = (new RTCRtpReceiver({} as never, 'video', 1) as unknown as { nack?: NackSender }).nack;
    if (!probe || typeof probe.sendNack !== 'function' || !Array.isArray(probe.lostSeqNumbers)) return false;
    const proto = Object.getPrototypeOf(probe) as { setLost?: (...args: unknown[]) => unknown };
    const setLost = proto.setLost;
    if (typeof setLost !== 'function') return false;
    patch.value(proto, 'setLost', function (this: NackSender, ...args: unknown[]): unknown {
      if (!this[ENDS]) {
        this[ENDS] = true;
        const send = this.sendNack;
        // The sender's own test for having something to send, as it is.
        this.sendNack = () => (this.lostSeqNumbers.length > 0 && this.mediaSourceSsrc ? send() : Promise.resolve());
      }
      return setLost.apply(this, args);
    });
    return true;
  });
}

const SETTLED = Promise.resolve();

/**
 * Two calls werift's receiver makes on every packet that allocate for nothing: runRtcp(), an async
 * function that returns at once while its report loop runs (a fresh promise each time), and the
 * codec's `name`, split out of its MIME type twice a packet. The first gets a settled promise when
 * the loop already runs; the second is looked up by MIME type. Returns false when werift's receiver
 * or codec parameters are not what this expects.
 */
export function useQuietPerPacketCalls(): boolean {
  return applyOnce('quietPerPacket', (patch) => {
    const receiver = RTCRtpReceiver.prototype as unknown as { runRtcp?: () => Promise<void> };
    const runRtcp = receiver.runRtcp;
    const nameGetter = Object.getOwnPropertyDescriptor(RTCRtpCodecParameters.prototype, 'name')?.get;
    const probe = new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000 });
    if (typeof runRtcp !== 'function' || !nameGetter || nameGetter.call(probe) !== 'VP8') return false;
    patch.value(receiver, 'runRtcp', function (this: { rtcpRunning?: boolean; stopped?: boolean }): Promise<void> {
      return this.rtcpRunning || this.stopped ? SETTLED : runRtcp.call(this);
    });
    const names = new Map<string, string | undefined>();
    patch.define(RTCRtpCodecParameters.prototype, 'name', {
      get(this: { mimeType: string }): string | undefined {
        const mime = this.mimeType;
        if (typeof mime !== 'string') return nameGetter.call(this) as string | undefined;
        let name = names.get(mime);
        if (name === undefined && !names.has(mime)) {
          name = nameGetter.call(this) as string | undefined;
          // A handful of codecs in practice; the bound only guards against a peer that invents many.
          if (names.size < 256) names.set(mime, name);
        }
        return name;
      },
      configurable: true,
    });
    return true;
  });
}
