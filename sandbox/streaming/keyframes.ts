import type { VideoCodec } from './connect-message';

/**
 * True when an RTP payload starts a key frame: VP8 with its payload descriptor's start bit and the
 * frame header's key bit, VP9 with a start of frame that is not inter-predicted, H.264 with an IDR
 * slice (or the SPS that leads one) alone, in a STAP-A or at the start of an FU-A.
 */
export function startsKeyframe(codec: VideoCodec, payload: Buffer): boolean {
  if (payload.length === 0) return false;
  if (codec === 'VP8') return vp8Keyframe(payload);
  if (codec === 'VP9') return (payload[0] & 0x08) !== 0 && (payload[0] & 0x40) === 0;
  return h264Keyframe(payload);
}

function vp8Keyframe(p: Buffer): boolean {
  const start = (p[0] & 0x10) !== 0 && (p[0] & 0x0f) === 0;
  if (!start) return false;
  let i = 1;
  if (p[0] & 0x80) {
    const x = p[i++];
    if (x & 0x80) i += p[i] & 0x80 ? 2 : 1;
    if (x & 0x40) i += 1;
    if (x & 0x30) i += 1;
  }
  return i < p.length && (p[i] & 0x01) === 0;
}

function h264Keyframe(p: Buffer): boolean {
  const type = p[0] & 0x1f;
  if (type === 5 || type === 7) return true;
  if (type === 24) {
    for (let i = 1; i + 2 < p.length; ) {
      const size = p.readUInt16BE(i);
      const nal = p[i + 2] & 0x1f;
      if (nal === 5 || nal === 7) return true;
      i += 2 + size;
    }
    return false;
  }
  return type === 28 && p.length > 1 && (p[1] & 0x80) !== 0 && (p[1] & 0x1f) === 5;
}
