import { KeyObject, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { RtpHeader, RtpPacket, SrtpSession, getBit } from 'werift';
import { fastGetBit, plainRtpDeserialize, speedUpWerift, useKeyObjectsForSrtp, usePlainRtpObjects } from '../../shared/signaling/werift-speedups';

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

test("werift's insides are found where the speed-ups expect them", () => {
  // False here means a werift upgrade moved them: the watcher then works, but each packet costs more.
  expect(speedUpWerift()).toEqual({ srtpKeyObjects: true, fastGetBit: true, plainRtpObjects: true });
  expect(speedUpWerift()).toEqual({ srtpKeyObjects: true, fastGetBit: true, plainRtpObjects: true });
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
