/**
 * H.264 for the test RTSP camera: an Annex-B elementary stream cut into pictures, and pictures cut
 * into RTP payloads as RFC 6184 says (packetization-mode=1: single NAL unit packets and FU-A).
 */

/** NAL unit types this module cares about (RFC 6184 §1.3, H.264 table 7-1). */
const NAL = { slice: 1, idr: 5, sei: 6, sps: 7, pps: 8, aud: 9, fuA: 28 } as const;

/** One picture of the stream: its NAL units (start codes removed), SPS/PPS left out. */
export interface Picture {
  nals: Buffer[];
  /** An IDR picture: the parameter sets go in front of it. */
  idr: boolean;
  /** VCL NAL units (slices) in the picture. */
  slices: number;
}

/** A parsed clip: its pictures in decoding order and its parameter sets. */
export interface H264Clip {
  pictures: Picture[];
  sps: Buffer;
  pps: Buffer;
}

/** The NAL units of an Annex-B byte stream (3- or 4-byte start codes), without their start codes. */
export function nalUnits(stream: Buffer): Buffer[] {
  const starts: { at: number; payload: number }[] = [];
  for (let i = 0; i + 2 < stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      starts.push({ at: i > 0 && stream[i - 1] === 0 ? i - 1 : i, payload: i + 3 });
      i += 2;
    }
  }
  return starts.map((s, k) => stream.subarray(s.payload, k + 1 < starts.length ? starts[k + 1].at : stream.length)).filter((n) => n.length > 0);
}

const typeOf = (nal: Buffer): number => nal[0] & 0x1f;
const isSlice = (t: number): boolean => t >= 1 && t <= 5;

/**
 * Cuts an Annex-B stream into pictures. A slice whose first_mb_in_slice is 0 (its ue(v) is the
 * single bit 1, so the first payload byte has its top bit set) starts a new picture, as does an
 * access unit delimiter or SEI after a slice; the first SPS and PPS are kept apart.
 */
export function parseH264(stream: Buffer): H264Clip {
  let sps: Buffer | undefined;
  let pps: Buffer | undefined;
  const pictures: Picture[] = [];
  let pending: Buffer[] = [];
  let current: Picture | undefined;
  for (const nal of nalUnits(stream)) {
    const t = typeOf(nal);
    if (t === NAL.sps || t === NAL.pps) {
      if (t === NAL.sps) sps ??= Buffer.from(nal);
      else pps ??= Buffer.from(nal);
      current = undefined;
      continue;
    }
    if (t === NAL.aud) {
      current = undefined;
      continue;
    }
    if (!isSlice(t)) {
      current = undefined;
      pending.push(nal);
      continue;
    }
    const firstSlice = (nal[1] & 0x80) !== 0;
    if (!current || firstSlice) {
      current = { nals: pending, idr: false, slices: 0 };
      pending = [];
      pictures.push(current);
    }
    current.nals.push(nal);
    current.slices++;
    if (t === NAL.idr) current.idr = true;
  }
  if (!sps || !pps) throw new Error('the H.264 stream has no SPS or PPS');
  if (!pictures.length) throw new Error('the H.264 stream has no pictures');
  if (!pictures[0].idr) throw new Error('the H.264 stream does not start with an IDR picture');
  return { pictures, sps, pps };
}

/** The SDP fmtp parameters of a clip (RFC 6184 §8.1): packetization mode, profile-level-id, sprop-parameter-sets. */
export function fmtp(clip: H264Clip): string {
  const profileLevelId = clip.sps.subarray(1, 4).toString('hex').toUpperCase();
  const sprop = `${clip.sps.toString('base64')},${clip.pps.toString('base64')}`;
  return `packetization-mode=1;profile-level-id=${profileLevelId};sprop-parameter-sets=${sprop}`;
}

/**
 * The RTP payloads of one NAL unit: the unit itself when it fits in `max` bytes, else FU-A
 * fragments (RFC 6184 §5.8): an indicator carrying the unit's F and NRI bits, a header with the
 * start/end bits and the unit's type, then a piece of the unit after its own header byte.
 */
export function payloadsOf(nal: Buffer, max = 1200): Buffer[] {
  if (nal.length <= max) return [nal];
  const indicator = (nal[0] & 0xe0) | NAL.fuA;
  const type = typeOf(nal);
  const out: Buffer[] = [];
  const room = max - 2;
  for (let at = 1; at < nal.length; at += room) {
    const end = Math.min(nal.length, at + room);
    const header = (at === 1 ? 0x80 : 0) | (end === nal.length ? 0x40 : 0) | type;
    out.push(Buffer.concat([Buffer.from([indicator, header]), nal.subarray(at, end)]));
  }
  return out;
}

/** The RTP payloads of one picture, the parameter sets in front of an IDR. The last one takes the marker bit. */
export function picturePayloads(clip: H264Clip, picture: Picture, max = 1200): Buffer[] {
  const nals = picture.idr ? [clip.sps, clip.pps, ...picture.nals] : picture.nals;
  return nals.flatMap((n) => payloadsOf(n, max));
}

/** An RTP packet (RFC 3550 §5.1): version 2, no padding, extension or CSRC. */
export function rtpPacket(o: { payloadType: number; marker: boolean; seq: number; timestamp: number; ssrc: number; payload: Buffer }): Buffer {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = (o.marker ? 0x80 : 0) | (o.payloadType & 0x7f);
  header.writeUInt16BE(o.seq & 0xffff, 2);
  header.writeUInt32BE(o.timestamp >>> 0, 4);
  header.writeUInt32BE(o.ssrc >>> 0, 8);
  return Buffer.concat([header, o.payload]);
}
