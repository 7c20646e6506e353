import { NAL, nalType, splitAnnexB } from './annexb';
import type { VideoCodec } from './types';
import { parseVp8Frame } from './vp8';
import { parseVp9Frame } from './vp9';

/** True when an encoded frame (VP8/VP9 frame, H.264 Annex-B access unit) can be decoded on its own. */
export function isKeyFrame(codec: VideoCodec, data: Uint8Array): boolean {
  if (codec === 'VP8') return parseVp8Frame(data).isKeyframe;
  if (codec === 'VP9') return parseVp9Frame(data).isKeyframe;
  return splitAnnexB(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).some((unit) => nalType(unit) === NAL.idr);
}
