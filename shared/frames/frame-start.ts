import { NAL, isVcl } from './annexb';
import type { VideoCodec } from './types';

const STAP_A = 24;
const FU_A = 28;

/**
 * True when an RTP payload provably begins a picture. After a gap, a packet that does not is the
 * middle of a picture whose start was lost, and the rest of that picture has to be thrown away.
 */
export function startsFrame(codec: VideoCodec, payload: Uint8Array): boolean {
  if (payload.length === 0) return false;
  if (codec === 'VP8') return (payload[0] & 0x10) !== 0 && (payload[0] & 0x07) === 0; // S bit, partition 0 (RFC 7741)
  if (codec === 'VP9') return (payload[0] & 0x08) !== 0; // B bit (RFC 9628)
  return h264StartsPicture(payload);
}

// RFC 6184: a single NAL unit, the first unit of a STAP-A, or the first fragment of an FU-A.
function h264StartsPicture(p: Uint8Array): boolean {
  const type = p[0] & 0x1f;
  if (type >= 1 && type <= 23) return unitStartsPicture(type, p[1]);
  if (type === STAP_A) return p.length > 4 && unitStartsPicture(p[3] & 0x1f, p[4]);
  if (type === FU_A) return p.length > 2 && (p[1] & 0x80) !== 0 && unitStartsPicture(p[1] & 0x1f, p[2]);
  return false;
}

// A slice starts a picture when first_mb_in_slice is 0, i.e. its first ue(v) bit is 1.
function unitStartsPicture(type: number, firstPayloadByte: number | undefined): boolean {
  if (type === NAL.aud || type === NAL.sps || type === NAL.pps || type === NAL.sei) return true;
  return isVcl(type) && firstPayloadByte !== undefined && (firstPayloadByte & 0x80) !== 0;
}
