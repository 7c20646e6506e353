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

/**
 * Length of the VP8 payload descriptor at the start of an RTP payload (RFC 7741 section 4.2), or -1
 * when the payload is too short to hold it and at least one byte of frame data.
 */
export function vp8DescriptorLength(payload: Uint8Array): number {
  let n = 1;
  if (payload.length > 0 && (payload[0] & 0x80) !== 0) {
    // X: an extension byte with I (picture id, 1 or 2 bytes), L (TL0PICIDX), T or K (one byte for both).
    const x = payload[1] ?? 0;
    n = 2;
    if ((x & 0x80) !== 0) n += (payload[n] ?? 0) & 0x80 ? 2 : 1;
    if ((x & 0x40) !== 0) n += 1;
    if ((x & 0x30) !== 0) n += 1;
  }
  return payload.length > n ? n : -1;
}

/** The VP8 frame carried by the RTP payloads of one picture, without their descriptors; undefined if one is malformed. */
export function joinVp8Payloads(payloads: readonly Uint8Array[]): Buffer | undefined {
  let size = 0;
  const starts: number[] = [];
  for (const p of payloads) {
    const start = vp8DescriptorLength(p);
    if (start < 0) return undefined;
    starts.push(start);
    size += p.length - start;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  payloads.forEach((p, i) => {
    out.set(p.subarray(starts[i]), at);
    at += p.length - starts[i];
  });
  return out;
}
