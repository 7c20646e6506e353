import type { EncodedFrame } from '../../shared/frames';
import { PreRoll } from '../../shared/clips/pre-roll';

// The pre-roll on plain frames (no decoding, no network): what it keeps by the seconds bound, and
// what the bytes bound lets go when key frames are far apart.

const FPS = 30;
const RTP_HZ = 90_000;
const T0 = 1_700_000_000_000;

/** A stream's frames from `fromS` to `toS` seconds: `bytes` each, a key frame every `keyEveryS`. */
function* stream(fromS: number, toS: number, keyEveryS: number, bytes: number): Generator<{ frame: EncodedFrame; at: number }> {
  for (let i = Math.round(fromS * FPS); i < Math.round(toS * FPS); i++) {
    const frame: EncodedFrame = { codec: 'VP8', data: Buffer.alloc(bytes, i % 256), isKeyframe: i % (keyEveryS * FPS) === 0, timestamp: (i * RTP_HZ) / FPS, width: 640, height: 480 };
    yield { frame, at: T0 + (i * 1000) / FPS };
  }
}

test('the seconds bound: from the newest key frame that leaves at least keepMs, nothing dropped, and a clip starts on the key frame before its start', () => {
  const roll = new PreRoll(2000, 8 * 1024 * 1024);
  for (const { frame, at } of stream(0, 10, 1, 1000)) {
    roll.push(frame, at);
    const held = roll.since(at, 0);
    expect(held[0].frame.isKeyframe).toBe(true);
  }
  // Key frames 1 s apart, the last frame at 10 s - 1/30: from the key frame at 7 s (8 s would leave less than 2 s).
  expect(roll.stats).toEqual({ frames: 3 * FPS, bytes: 3 * FPS * 1000, seconds: 3, max_bytes: 8 * 1024 * 1024, dropped_frames: 0 });
  // 1.5 s before the last frame's arrival: from the key frame at 8 s (the last frame came at 10 s - 1/30).
  const last = T0 + ((10 * FPS - 1) * 1000) / FPS;
  const held = roll.since(last, 1500);
  expect(held[0]).toMatchObject({ at: T0 + 8000, frame: { isKeyframe: true, timestamp: 8 * RTP_HZ } });
  expect(held).toHaveLength(2 * FPS);
});

test('the bytes bound with key frames 10 s apart: it never holds more, whole groups go from the oldest, and each frame let go is counted', () => {
  const maxBytes = 140 * 2000; // 4.67 s of 2000-byte frames at 30/s
  const roll = new PreRoll(8000, maxBytes);
  for (const { frame, at } of stream(0, 25, 10, 2000)) {
    roll.push(frame, at);
    expect(roll.stats.bytes).toBeLessThanOrEqual(maxBytes);
    const held = roll.since(at, 0);
    if (held.length > 0) expect(held[0].frame.isKeyframe).toBe(true);
  }
  const s = roll.stats;
  // Each group of pictures (10 s) outgrows the bound at its 141st frame and goes whole; nothing is
  // held until the next key frame. Three groups were let go, each frame counted.
  expect(s).toEqual({ frames: 0, bytes: 0, seconds: 0, max_bytes: maxBytes, dropped_frames: 3 * 141 });
  // A clip asked for now finds no key frame.
  expect(roll.since(T0 + 25_000, 5000)).toEqual([]);
});

test('frames before the first key frame are not kept; a new picture size starts over', () => {
  const roll = new PreRoll(2000, 1024 * 1024);
  const frames = [...stream(0, 3, 1, 500)].slice(5);
  for (const { frame, at } of frames) roll.push(frame, at);
  expect(roll.since(T0 + 3000, 5000)[0].frame.timestamp).toBe(RTP_HZ);
  const bigger: EncodedFrame = { codec: 'VP8', data: Buffer.alloc(500), isKeyframe: true, timestamp: 3 * RTP_HZ, width: 1280, height: 720 };
  roll.push(bigger, T0 + 3000);
  expect(roll.stats).toMatchObject({ frames: 1, bytes: 500, dropped_frames: 0 });
});

test('a sender that restarted (its stream times going back, or far from the time that passed) starts over: a clip never holds two streams', () => {
  const roll = new PreRoll(2000, 1024 * 1024);
  for (const { frame, at } of stream(0, 3, 1, 500)) roll.push(frame, at);
  expect(roll.stats.frames).toBeGreaterThan(0);
  // Back to stream time 0, 3 s later: a new stream, held from its key frame.
  const again = (timestamp: number, at: number): EncodedFrame & { at: number } => ({ codec: 'VP8', data: Buffer.alloc(500), isKeyframe: true, timestamp, width: 640, height: 480, at });
  const back = again(0, T0 + 3000);
  roll.push(back, back.at);
  expect(roll.stats).toMatchObject({ frames: 1, bytes: 500, dropped_frames: 0 });
  // An hour ahead in stream time, 33 ms later: a new stream again.
  const ahead = again(3600 * RTP_HZ, T0 + 3033);
  roll.push(ahead, ahead.at);
  expect(roll.since(ahead.at, 5000).map((h) => h.frame.timestamp)).toEqual([3600 * RTP_HZ]);
});
