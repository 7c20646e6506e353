/** What a VP8 frame header says about the frame. */
export interface Vp8FrameInfo {
  isKeyframe: boolean;
  width?: number;
  height?: number;
}

/**
 * Reads the VP8 frame tag (RFC 6386 section 9.1). The RTP payload descriptor's hints are not
 * trusted: a key frame is only one whose tag bit is 0 AND whose start code 9d 01 2a is present.
 */
export function parseVp8Frame(data: Uint8Array): Vp8FrameInfo {
  if (data.length < 10) return { isKeyframe: false };
  const keyBitClear = (data[0] & 1) === 0;
  const startCode = data[3] === 0x9d && data[4] === 0x01 && data[5] === 0x2a;
  if (!keyBitClear || !startCode) return { isKeyframe: false };
  // The top two bits of each 16-bit field are the scaling mode, not part of the size.
  const width = (data[6] | (data[7] << 8)) & 0x3fff;
  const height = (data[8] | (data[9] << 8)) & 0x3fff;
  return { isKeyframe: true, width, height };
}
