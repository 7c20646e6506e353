import { BitReader } from './bit-reader';

/** What a VP9 uncompressed frame header says about the frame. */
export interface Vp9FrameInfo {
  isKeyframe: boolean;
  width?: number;
  height?: number;
}

const SYNC_CODE = [0x49, 0x83, 0x42];
const CS_RGB = 7;

/** Reads the VP9 uncompressed header (VP9 bitstream spec, section 6.2) of the first frame. */
export function parseVp9Frame(data: Uint8Array): Vp9FrameInfo {
  try {
    const r = new BitReader(data);
    if (r.bits(2) !== 2) return { isKeyframe: false };
    const profile = r.bits(1) | (r.bits(1) << 1);
    if (profile === 3) r.bits(1);
    if (r.flag()) return { isKeyframe: false }; // show_existing_frame repeats an older frame
    if (r.bits(1) !== 0) return { isKeyframe: false }; // frame_type 1 = non-key
    r.bits(2); // show_frame, error_resilient_mode
    for (const byte of SYNC_CODE) if (r.bits(8) !== byte) return { isKeyframe: false };
    if (profile >= 2) r.bits(1);
    const colorSpace = r.bits(3);
    if (colorSpace !== CS_RGB) {
      r.bits(1);
      if (profile === 1 || profile === 3) r.bits(3);
    } else if (profile === 1 || profile === 3) {
      r.bits(1);
    }
    const width = r.bits(16) + 1;
    const height = r.bits(16) + 1;
    return { isKeyframe: true, width, height };
  } catch {
    return { isKeyframe: false };
  }
}
