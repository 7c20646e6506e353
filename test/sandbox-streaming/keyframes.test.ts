import { startsKeyframe } from '../../sandbox/streaming/keyframes';

// What the SFU counts as the start of a key frame, per codec, from RTP payloads built by hand.

test('VP8: the start of partition 0 with the key bit clear, after any extension bytes of the descriptor', () => {
  expect(startsKeyframe('VP8', Buffer.from([0x10, 0x00]))).toBe(true);
  expect(startsKeyframe('VP8', Buffer.from([0x10, 0x01]))).toBe(false);
  // Not the start of the frame, or not partition 0.
  expect(startsKeyframe('VP8', Buffer.from([0x00, 0x00]))).toBe(false);
  expect(startsKeyframe('VP8', Buffer.from([0x11, 0x00]))).toBe(false);
  // X set: I with a 15-bit picture id (2 bytes), L (1 byte), T/K (1 byte), then the frame header.
  expect(startsKeyframe('VP8', Buffer.from([0x90, 0xf0, 0x80, 0x01, 0x00, 0x00, 0x00]))).toBe(true);
  expect(startsKeyframe('VP8', Buffer.from([0x90, 0xf0, 0x80, 0x01, 0x00, 0x00, 0x01]))).toBe(false);
  // I with a 7-bit picture id (1 byte) only.
  expect(startsKeyframe('VP8', Buffer.from([0x90, 0x80, 0x05, 0x00]))).toBe(true);
  expect(startsKeyframe('VP8', Buffer.alloc(0))).toBe(false);
});

test('VP9: a start of frame that is not inter-predicted', () => {
  expect(startsKeyframe('VP9', Buffer.from([0x08]))).toBe(true);
  expect(startsKeyframe('VP9', Buffer.from([0x48]))).toBe(false);
  expect(startsKeyframe('VP9', Buffer.from([0x00]))).toBe(false);
});

test('H.264: an IDR slice or an SPS, alone, in a STAP-A, or at the start of an FU-A', () => {
  expect(startsKeyframe('H264', Buffer.from([0x65, 0x88]))).toBe(true);
  expect(startsKeyframe('H264', Buffer.from([0x67, 0x42]))).toBe(true);
  expect(startsKeyframe('H264', Buffer.from([0x41, 0x9a]))).toBe(false);
  // STAP-A holding an SPS (2 bytes) and a PPS (1 byte).
  expect(startsKeyframe('H264', Buffer.from([0x78, 0x00, 0x02, 0x67, 0x42, 0x00, 0x01, 0x68]))).toBe(true);
  expect(startsKeyframe('H264', Buffer.from([0x78, 0x00, 0x01, 0x68]))).toBe(false);
  // FU-A: the first fragment of an IDR slice, then a middle one.
  expect(startsKeyframe('H264', Buffer.from([0x7c, 0x85, 0x00]))).toBe(true);
  expect(startsKeyframe('H264', Buffer.from([0x7c, 0x05, 0x00]))).toBe(false);
});
