import { isDeepStrictEqual } from 'node:util';
import { RtpHeader, RtpPacket } from 'werift';
import { applyOnce } from './apply-once';

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
