import { muxClip } from '../../shared/clips/mux';
import type { VideoCodec } from '../../shared/frames';
import { astronautClip } from '../decode/support/clips';
import { probeClip } from './support/probe';

// Frames as the receiver hands them over (15/s, RTP times), muxed without re-encoding: the file is
// read back by a demuxer and decoded by ffmpeg, picture for picture.

test.each<[VideoCodec, string, 'webm' | 'mp4']>([
  ['VP8', 'vp8', 'webm'],
  ['VP9', 'vp9', 'webm'],
  ['H264', 'avc', 'mp4'],
])('%s frames become a %s file as they are: key frame first, every picture, the stream\'s times', async (codec, probed, container) => {
  const clip = await astronautClip(codec, 30, 320, 240, 10);
  // Start at the second key frame, as a clip cut from a pre-roll does.
  const frames = clip.frames.slice(10);
  const muxed = await muxClip(frames);
  expect(muxed).toMatchObject({ container, codec, width: 320, height: 240 });
  // 20 frames at 15/s: 20/15 s.
  expect(muxed.durationS).toBeCloseTo(20 / 15, 2);
  const read = await probeClip(muxed.data, container);
  expect(read).toMatchObject({ codec: probed, width: 320, height: 240, packets: 20, firstIsKey: true, decoded: 20, errors: '' });
  // WebM blocks carry no length: a demuxer may end the file at the last frame's start.
  expect(Math.abs(read.durationS - 20 / 15)).toBeLessThanOrEqual(1 / 15 + 0.002);
}, 60_000);

test('a clip that does not start on a key frame is refused', async () => {
  const clip = await astronautClip('VP8', 12, 320, 240, 10);
  await expect(muxClip(clip.frames.slice(1))).rejects.toThrow(/key frame/);
});
