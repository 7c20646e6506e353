import { KeyObject, randomBytes } from 'node:crypto';
import { RtpHeader, RtpPacket, SrtpSession, getBit } from 'werift';
import { fastGetBit, speedUpWerift, useKeyObjectsForSrtp } from '../../shared/signaling/werift-speedups';

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
  expect(speedUpWerift()).toEqual({ srtpKeyObjects: true, fastGetBit: true });
  expect(speedUpWerift()).toEqual({ srtpKeyObjects: true, fastGetBit: true });
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
