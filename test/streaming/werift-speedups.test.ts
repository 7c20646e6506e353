import { KeyObject, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Event, RTCRtpCodecParameters, RTCRtpReceiver, RtpHeader, RtpPacket, SrtpSession, getBit } from 'werift';
import { InputError } from '../../shared/errors';
import { TESTED_WERIFT_VERSIONS, disableWeriftSpeedups, fastGetBit, leanExecute, plainRtpDeserialize, speedUpWerift, weriftSpeedupsStatus, useFirstCodecMemo, useKeyObjectsForSrtp, useLeanEvents, useNackLoopThatEnds, usePlainRtpObjects, useQuietPerPacketCalls } from '../../shared/signaling/werift-speedups';

// A sender and a receiver of one SRTP session: what one encrypts with its local keys the other
// decrypts with its remote keys.
function pair(profile: number, saltLength: number) {
  const a = { key: randomBytes(16), salt: randomBytes(saltLength) };
  const b = { key: randomBytes(16), salt: randomBytes(saltLength) };
  const session = (local: typeof a, remote: typeof a) =>
    new SrtpSession({ keys: { localMasterKey: local.key, localMasterSalt: local.salt, remoteMasterKey: remote.key, remoteMasterSalt: remote.salt }, profile });
  return { sender: session(a, b), receiver: session(b, a) };
}

function cipherOf(session: SrtpSession, side: 'localContext' | 'remoteContext'): { srtpSessionKey: unknown; srtcpSessionKey: unknown } {
  return (session as unknown as Record<typeof side, { cipher: { srtpSessionKey: unknown; srtcpSessionKey: unknown } }>)[side].cipher;
}

test('the installed werift is a release the speed-ups were tested with (package.json pins it)', () => {
  const installed = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'node_modules', 'werift', 'package.json'), 'utf8')) as { version: string }).version;
  const pinned = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.werift;
  expect(pinned).toBe(installed);
  expect(TESTED_WERIFT_VERSIONS).toContain(installed);
  expect(weriftSpeedupsStatus()).toEqual({ version: installed, enabled: true });
});

test("werift's insides are found where the speed-ups expect them", () => {
  // False here means a werift upgrade moved them: the watcher then works, but each packet costs more.
  const all = { srtpKeyObjects: true, fastGetBit: true, plainRtpObjects: true, leanEvents: true, firstCodecMemo: true, nackLoopEnds: true, quietPerPacket: true };
  expect(speedUpWerift()).toEqual(all);
  expect(speedUpWerift()).toEqual(all);
});

describe("werift's getBit done with shifts", () => {
  // werift's own, taken before anything replaced it (each test file loads werift afresh).
  const original = getBit;

  test('gives what the original gives for every byte, start and length', () => {
    const fast = fastGetBit(original);
    expect(fast).not.toBe(original);
    const differ: number[][] = [];
    for (let bits = 0; bits < 256; bits++) {
      for (let start = 0; start < 8; start++) {
        // start + length = 9 runs past the byte: handed to the original.
        for (let length = 1; start + length <= 9; length++) if (fast(bits, start, length) !== original(bits, start, length)) differ.push([bits, start, length]);
      }
      if (fast(bits, 3) !== original(bits, 3)) differ.push([bits, 3]);
    }
    expect(differ).toEqual([]);
    expect(() => fast(256, 0, 1)).toThrow(); // as werift's own does
  });

  test('is the one werift uses once applied, and RTP headers still parse', () => {
    speedUpWerift();
    expect(getBit).not.toBe(original);
    expect(getBit(0b1011_0000, 0, 2)).toBe(2);
    const header = new RtpHeader({ payloadType: 111, sequenceNumber: 65535, timestamp: 0xfffffff0, ssrc: 42, marker: true, csrcLength: 0 });
    const parsed = RtpPacket.deSerialize(new RtpPacket(header, Buffer.from([1, 2, 3])).serialize()).header;
    expect(parsed).toMatchObject({ version: 2, padding: false, extension: false, marker: true, payloadType: 111, sequenceNumber: 65535, timestamp: 0xfffffff0, ssrc: 42 });
  });
});

describe('SRTP ciphers keyed with KeyObjects', () => {
  test.each([
    ['AES_CM_128_HMAC_SHA1_80', 0x0001, 14],
    ['AEAD_AES_128_GCM', 0x0007, 12],
  ])('%s: packets still round-trip and tampering is still refused, with the keys turned into KeyObjects', (_name, profile, saltLength) => {
    useKeyObjectsForSrtp();
    const { sender, receiver } = pair(profile, saltLength);
    expect(Buffer.isBuffer(cipherOf(receiver, 'remoteContext').srtpSessionKey)).toBe(true);
    for (let seq = 100; seq < 105; seq++) {
      const payload = randomBytes(900);
      const header = new RtpHeader({ payloadType: 96, sequenceNumber: seq, timestamp: seq * 3000, ssrc: 1234, marker: seq === 104 });
      const packet = sender.encrypt(payload, header);
      const plain = receiver.decrypt(packet);
      expect(plain.subarray(plain.length - payload.length)).toEqual(payload);
      const tampered = Buffer.from(sender.encrypt(payload, new RtpHeader({ payloadType: 96, sequenceNumber: seq + 1000, timestamp: 0, ssrc: 1234 })));
      tampered[tampered.length - 20] ^= 1;
      expect(() => receiver.decrypt(tampered)).toThrow();
    }
    for (const [session, side] of [[sender, 'localContext'], [receiver, 'remoteContext']] as const) {
      expect(cipherOf(session, side).srtpSessionKey).toBeInstanceOf(KeyObject);
      expect(cipherOf(session, side).srtcpSessionKey).toBeInstanceOf(KeyObject);
    }
  });
});

describe('RTP headers and packets built with plain assignments', () => {
  // werift's own, taken before anything replaced them (each test file loads werift afresh).
  const originalDeserialize = RtpHeader.deSerialize;
  const originalClone = RtpPacket.prototype.clone;
  const newHeader = () => new RtpHeader();

  // What a parse gave: the header (class, own fields in order, values) or the error's class.
  function outcome(parse: (raw: Buffer) => RtpHeader, raw: Buffer): unknown {
    try {
      const h = parse(raw);
      return { proto: Object.getPrototypeOf(h), keys: Object.keys(h), header: { ...h } };
    } catch (err) {
      return { threw: (err as Error).constructor.name };
    }
  }

  // Random packets around every branch: CSRC counts, padding, both RFC 8285 profiles and others,
  // extension blocks that fit, end early or run past the packet, packets cut short anywhere.
  function randomPacket(random: () => number): Buffer {
    const byte = () => Math.floor(random() * 256);
    const csrcs = random() < 0.7 ? 0 : Math.floor(random() * 16);
    const body = Buffer.alloc(12 + 4 * csrcs + Math.floor(random() * 40));
    for (let i = 0; i < body.length; i++) body[i] = random() < 0.3 ? 0 : byte();
    body[0] = (random() < 0.9 ? 0x80 : byte() & 0xc0) | (random() < 0.3 ? 0x20 : 0) | (random() < 0.7 ? 0x10 : 0) | csrcs;
    const at = 12 + 4 * csrcs;
    if (body.length >= at + 4) {
      const profiles = [0xbede, 0xbede, 0x1000, 0x1000, byte() * 256 + byte()];
      body.writeUInt16BE(profiles[Math.floor(random() * profiles.length)]!, at);
      const fits = Math.floor((body.length - at - 4) / 4);
      body.writeUInt16BE(Math.floor(random() * (random() < 0.8 ? fits + 1 : 8)), at + 2);
    }
    return random() < 0.2 ? body.subarray(0, Math.floor(random() * body.length)) : body;
  }

  test("gives what werift's parser gives, or throws what it throws, for 50,000 random packets", () => {
    let handedOver = 0;
    const plain = plainRtpDeserialize(newHeader, (raw) => (handedOver++, originalDeserialize(raw)));
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const differ: string[] = [];
    let parsed = 0;
    for (let i = 0; i < 50_000; i++) {
      const raw = randomPacket(random);
      const expected = outcome(originalDeserialize, raw);
      if (!('threw' in (expected as object))) parsed++;
      if (!isDeepStrictEqual(outcome(plain, raw), expected)) differ.push(raw.toString('hex'));
    }
    expect(differ.slice(0, 5)).toEqual([]);
    expect(parsed).toBeGreaterThan(35_000); // most of them are headers, not errors
    expect(handedOver).toBeLessThan(20_000); // the plain parser read most of them itself
  });

  test('once applied, werift parses and clones with them, and its objects are unchanged', () => {
    expect(usePlainRtpObjects()).toBe(true);
    expect(RtpHeader.deSerialize).not.toBe(originalDeserialize);
    const header = new RtpHeader({ payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: 0xdeadbeef, marker: true, padding: true, paddingSize: 4, csrc: [5, 6] });
    header.extensions = [{ id: 3, payload: Buffer.from([1, 2, 3]) }];
    const raw = new RtpPacket(header, Buffer.from('payload')).serialize();
    const packet = RtpPacket.deSerialize(raw);
    expect(packet).toBeInstanceOf(RtpPacket);
    expect(packet.header).toBeInstanceOf(RtpHeader);
    expect(packet.payload.toString()).toBe('payload');
    expect(packet.header).toMatchObject({ payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: 0xdeadbeef, marker: true, padding: true, paddingSize: 4, csrc: [5, 6] });
    expect(packet.header.extensions).toEqual([{ id: 3, payload: Buffer.from([1, 2, 3]) }]);

    const clone = packet.clone();
    const reference = originalClone.call(packet);
    expect(Object.keys(clone)).toEqual(Object.keys(reference));
    expect(Object.keys(clone.header)).toEqual(Object.keys(reference.header));
    expect(clone).toStrictEqual(reference);
    expect(clone.header).not.toBe(packet.header);
    expect(clone.serialize()).toEqual(raw);
    clone.header.sequenceNumber = 8;
    expect(packet.header.sequenceNumber).toBe(7);
  });
});

describe("werift's Events without an async function per call", () => {
  // werift's own, taken before anything replaced it.
  const Original = Event;
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  // One script of subscriptions and calls, and what the subscribers saw, in order.
  async function script(make: () => Event<[number]>): Promise<string[]> {
    const log: string[] = [];
    const e = make();
    e.onerror = (err) => log.push(`onerror ${String(err)}`);
    const first = e.subscribe((n) => log.push(`sync1 ${n}`));
    e.once((n) => log.push(`once ${n}`));
    e.execute(1);
    e.subscribe((n) => {
      log.push(`sync2 ${n}`);
      if (n === 2) {
        // A queued subscriber added while the event runs is run by that same call.
        e.queuingSubscribe(async (m) => {
          log.push(`queued start ${m}`);
          await flush();
          log.push(`queued end ${m}`);
          if (m === 4) throw new Error('boom');
        });
      }
    });
    e.execute(2);
    log.push('after 2');
    await flush();
    first.unSubscribe();
    e.execute(3);
    e.execute(4);
    log.push('after 4');
    await flush();
    await flush();
    e.complete();
    e.execute(5);
    await flush();
    return log;
  }

  test('subscribers see the same calls in the same order, errors included', async () => {
    const lean = () => {
      const e = new Original<[number]>();
      e.execute = leanExecute(e as never, e.execute as never) as never;
      return e;
    };
    const expected = await script(() => new Original<[number]>());
    expect(expected).toContain('onerror Error: boom');
    expect(await script(lean)).toEqual(expected);
  });

  test('once applied, werift makes lean Events, of the same class as before', async () => {
    expect(useLeanEvents()).toBe(true);
    const e = new RTCRtpReceiver({} as never, 'video', 1).onRtcp;
    expect(e).toBeInstanceOf(Original);
    expect(e.execute.toString()).not.toBe(new Original().execute.toString());
    expect(await script(() => new Event<[number]>())).toEqual(await script(() => new Original<[number]>()));
  });
});

describe("werift receiver's first codec, kept between its codec changes", () => {
  const codec = (payloadType: number, feedback: string[]) =>
    new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000, payloadType, rtcpFeedback: feedback.map((type) => ({ type })) });

  test('NACK and transport-cc follow the codecs werift negotiates, before and after a resync', () => {
    expect(useFirstCodecMemo()).toBe(true);
    const r = new RTCRtpReceiver({} as never, 'video', 1);
    expect([r.nackEnabled, r.twccEnabled]).toEqual([undefined, undefined]);
    r.prepareReceive({ codecs: [codec(100, ['nack']), codec(96, ['transport-cc', 'goog-remb'])], encodings: [] } as never);
    expect([r.nackEnabled, r.twccEnabled]).toEqual([undefined, { type: 'transport-cc' }]);
    expect(r.twccEnabled).toBe(r.twccEnabled);
    r.resyncCodecs({ codecs: [codec(97, ['nack', 'ccm'])], encodings: [] } as never);
    expect([r.nackEnabled, r.twccEnabled]).toEqual([{ type: 'nack' }, undefined]);
    r.prepareReceive({ codecs: [codec(35, ['transport-cc'])], encodings: [] } as never);
    expect([r.nackEnabled, r.twccEnabled]).toEqual([undefined, { type: 'transport-cc' }]);
    // Another receiver keeps its own.
    const other = new RTCRtpReceiver({} as never, 'video', 2);
    other.prepareReceive({ codecs: [codec(96, ['nack'])], encodings: [] } as never);
    expect([other.nackEnabled, r.nackEnabled]).toEqual([{ type: 'nack' }, undefined]);
  });
});

describe("werift's NACK loop", () => {
  // Waits (a bounded while) for what the 5 ms loop should bring about.
  async function until(done: () => boolean): Promise<boolean> {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return done();
  }

  test('sends NACKs for lost packets, and stops once they are recovered; a later loss starts it again', async () => {
    expect(useNackLoopThatEnds()).toBe(true);
    const receiver = new RTCRtpReceiver({} as never, 'video', 1);
    const sent: number[][] = [];
    (receiver as unknown as { dtlsTransport: unknown }).dtlsTransport = {
      sendRtcp: async (packets: { feedback: { lost: number[] } }[]) => void sent.push(...packets.map((p) => p.feedback.lost)),
    };
    const nack = (receiver as unknown as { nack: { addPacket(p: RtpPacket): void; close(): void; nackLoop?: unknown } }).nack;
    const packet = (seq: number) => new RtpPacket(new RtpHeader({ sequenceNumber: seq, ssrc: 99, payloadType: 96 }), Buffer.alloc(10));
    try {
      for (const seq of [1, 2, 5]) nack.addPacket(packet(seq));
      expect(await until(() => sent.length > 0)).toBe(true);
      expect(sent[0]).toEqual([3, 4]);
      // The retransmissions arrive: the loop ends (werift's own ran on for good).
      nack.addPacket(packet(3));
      nack.addPacket(packet(4));
      expect(await until(() => nack.nackLoop === undefined)).toBe(true);

      const before = sent.length;
      nack.addPacket(packet(7));
      expect(nack.nackLoop).toBeDefined();
      expect(await until(() => sent.length > before)).toBe(true);
      expect(sent.at(-1)).toEqual([6]);
      nack.addPacket(packet(6));
      expect(await until(() => nack.nackLoop === undefined)).toBe(true);
    } finally {
      nack.close();
    }
  });
});

describe("werift's per-packet calls that allocated for nothing", () => {
  // werift's own, taken before anything replaced it.
  const originalName = Object.getOwnPropertyDescriptor(RTCRtpCodecParameters.prototype, 'name')!.get!;

  test("a codec's name is what werift's getter gives, for any MIME type, and follows a changed one", () => {
    const mimes = ['video/VP8', 'video/rtx', 'audio/opus', 'video/H264', 'novideo', 'video/', '/x', 'a/b/c'];
    const before = mimes.map((mimeType) => originalName.call(new RTCRtpCodecParameters({ mimeType, clockRate: 90000 })));
    expect(useQuietPerPacketCalls()).toBe(true);
    expect(Object.getOwnPropertyDescriptor(RTCRtpCodecParameters.prototype, 'name')!.get).not.toBe(originalName);
    expect(mimes.map((mimeType) => new RTCRtpCodecParameters({ mimeType, clockRate: 90000 }).name)).toEqual(before);
    expect(mimes.map((mimeType) => new RTCRtpCodecParameters({ mimeType, clockRate: 90000 }).name)).toEqual(before);
    const codec = new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000 });
    expect(codec.name).toBe('VP8');
    codec.mimeType = 'video/VP9';
    expect(codec.name).toBe('VP9');
    (codec as { mimeType: unknown }).mimeType = undefined;
    expect(() => codec.name).toThrow(TypeError); // as werift's own
  });

  test('the RTCP report loop starts once, and later calls get a settled promise without starting another', async () => {
    expect(useQuietPerPacketCalls()).toBe(true);
    const r = new RTCRtpReceiver({} as never, 'video', 1) as unknown as { runRtcp(): Promise<void>; rtcpRunning: boolean; stop(): void };
    expect(r.rtcpRunning).toBe(false);
    const loop = r.runRtcp();
    expect(r.rtcpRunning).toBe(true);
    const again = r.runRtcp();
    expect(again).toBe(r.runRtcp());
    await again;
    r.stop();
    await loop;
    expect(r.rtcpRunning).toBe(false);
  });
});

test('once applied, turning them off is refused with an error naming the option, and the status still says they run', () => {
  speedUpWerift();
  expect(() => disableWeriftSpeedups()).toThrow(InputError);
  expect(() => disableWeriftSpeedups()).toThrow(/cannot be turned off on this thread.*srtpKeyObjects/);
  expect(weriftSpeedupsStatus()).toMatchObject({ enabled: true });
});
