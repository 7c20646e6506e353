import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Publisher } from '../../shared/publish';
import { FaceWatcher, type ArrivedEvent, type ClipEvent, type LeftEvent, type WatchEvent, type WatchOptions } from '../../shared/watch';
import { runFfmpeg } from '../streaming/support/ffmpeg';
import { encodeClip, type Segment } from '../support/clip';
import { collect, publishClip, useStandardScene, waitFor, type WatchHarness } from '../watch/support/room';
import { ffprobeClip, ffprobePath, probeClip } from './support/probe';

// Clips from the real WebRTC path: a published clip of nobody for 2 s, then A for 2 s, then nobody
// for 4 s (looped), watched with a 1 s pre-roll and a 1 s post-roll. The clip must start before A
// appeared (its first picture shows no face), end a post-roll after A was last seen, and be read
// back by a demuxer and decoded by ffmpeg.

const PRE = 1;
const POST = 1;

let h: WatchHarness;
let dir: string;
let collectionId: string;
const clips: Partial<Record<'VP8' | 'H264', string>> = {};

useStandardScene('clips-', 240_000, async (setup) => {
  ({ h, dir } = setup);
  collectionId = setup.scene.collectionId;
  const at = { faceSide: 150, cx: 320, cy: 220 };
  const segments: Segment[] = [
    { placements: [], seconds: 2, drift: 4 },
    { placements: [{ person: setup.scene.people.a, ...at }], seconds: 2, drift: 4 },
    { placements: [], seconds: 4, drift: 4 },
  ];
  clips.VP8 = await encodeClip(dir, 'visit-vp8', segments);
  clips.H264 = await encodeClip(dir, 'visit-h264', segments, { codec: 'H264' });
});

let publisher: Publisher | undefined;
let watcher: FaceWatcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  await publisher?.close();
  watcher = undefined;
  publisher = undefined;
});

async function watch(codec: 'VP8' | 'H264', folder: string, options: Partial<WatchOptions> = {}): Promise<{ events: WatchEvent[]; clipEvents: ClipEvent[] }> {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, codec, leftAfterSeconds: 1.5, clips: folder, preRollSeconds: PRE, postRollSeconds: POST, ...options });
  const events = collect((n, fn) => watcher!.on(n, fn));
  const clipEvents: ClipEvent[] = [];
  watcher.on('clip', (e) => clipEvents.push(e));
  await watcher.start();
  publisher = await publishClip(h, room.id, clips[codec]!);
  return { events, clipEvents };
}

/** The first picture of a clip file, as JPEG (decoded by the dev ffmpeg). */
async function firstPicture(file: string, container: string): Promise<Buffer> {
  const r = await runFfmpeg(['-v', 'error', '-f', container === 'mp4' ? 'mp4' : 'matroska', '-i', file, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'mjpeg', 'pipe:1']);
  expect(r.stderr).toBe('');
  return r.stdout;
}

test.each(['VP8', 'H264'] as const)('%s: a visit gives one clip, from before the face appeared to a post-roll after it was last seen, as the stream sent it', async (codec) => {
  const folder = path.join(dir, `out-${codec}`);
  const { events, clipEvents } = await watch(codec, folder);
  await waitFor('a clip', () => clipEvents.length > 0, 60_000);
  const clip = clipEvents[0];
  const arrived = events.find((e): e is ArrivedEvent => e.event === 'arrived' && e.visit_id === clip.visit_id)!;
  // The visit's last sight is told by its `left` (1.5 s after it).
  const leftOf = (): LeftEvent | undefined => events.find((e): e is LeftEvent => e.event === 'left' && e.visit_id === clip.visit_id);
  await waitFor('the visit to leave', () => leftOf() !== undefined, 30_000);
  const left = leftOf()!;
  expect(clip).toMatchObject({ event: 'clip', trigger: 'arrived', stream_id: arrived.stream_id, room: arrived.room, kind: arrived.kind, face_id: arrived.face_id, container: codec === 'VP8' ? 'webm' : 'mp4', codec, width: 640, height: 480, ended: 'post_roll' });
  expect(clip.error).toBeUndefined();
  // The file: complete, named, this user's only, and nothing half-written beside it.
  const file = clip.path!;
  expect(path.dirname(file)).toBe(path.resolve(folder));
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect(await readdir(folder)).toEqual([path.basename(file)]);
  const data = await readFile(file);
  expect(data.length).toBe(clip.bytes);
  const read = await probeClip(data, clip.container!);
  expect(read).toMatchObject({ codec: codec === 'VP8' ? 'vp8' : 'avc', width: 640, height: 480, firstIsKey: true, errors: '' });
  expect(read.decoded).toBe(read.packets);
  // The file's length is the event's (WebM may end at the last frame's start: one frame at 10/s).
  expect(Math.abs(read.durationS - clip.duration_s!)).toBeLessThanOrEqual(0.15);
  // ffprobe reads the same: the codec, the size, a key frame first, the duration within half a second.
  const ffprobe = await ffprobePath();
  if (ffprobe) {
    const probed = await ffprobeClip(ffprobe, data, clip.container!);
    expect(probed).toMatchObject({ codec: codec === 'VP8' ? 'vp8' : 'h264', width: 640, height: 480, firstFrameKey: true });
    expect(Math.abs(probed.durationS - clip.duration_s!)).toBeLessThanOrEqual(0.5);
  }
  // From the key frame at or before PRE seconds ahead of the arrival's frame (key frames 1 s apart)...
  const anchor = Date.parse(arrived.time) - arrived.latency_ms;
  const before = (anchor - Date.parse(clip.start!)) / 1000;
  expect(before).toBeGreaterThanOrEqual(PRE - 0.5);
  expect(before).toBeLessThanOrEqual(PRE + 1 + 0.5);
  // ...to POST seconds after A was last seen (A is in view 2 s).
  const lastSeen = Date.parse(left.left_at);
  const after = (Date.parse(clip.end!) - lastSeen) / 1000;
  expect(after).toBeGreaterThanOrEqual(POST - 0.5);
  expect(after).toBeLessThanOrEqual(POST + 0.5);
  // The pre-roll is really the time before: its first picture shows nobody; A is in the file.
  expect(await h.vision.detectFaces(await firstPicture(file, clip.container!))).toHaveLength(0);
  // One clip per visit.
  expect(clipEvents.filter((c) => c.visit_id === clip.visit_id)).toHaveLength(1);
}, 120_000);

test('a folder that cannot be written gives a clip error event, leaves no file, and the watch goes on', async () => {
  const folder = path.join(dir, 'gone');
  const { events, clipEvents } = await watch('VP8', folder);
  // The folder passed the check at start, then went away (as a full or unmounted disk would fail the write).
  await rm(folder, { recursive: true, force: true });
  await waitFor('a clip event', () => clipEvents.length > 0, 60_000);
  expect(clipEvents[0]).toMatchObject({ event: 'clip', trigger: 'arrived', error: 'write_failed', cause: 'ENOENT' });
  expect(clipEvents[0].path).toBeUndefined();
  expect(watcher!.state).toBe('watching');
  // Watching goes on: the next loop's visit is reported too.
  const arrivals = (): number => events.filter((e) => e.event === 'arrived').length;
  const seen = arrivals();
  await waitFor('the next arrival', () => arrivals() > seen, 60_000);
  await expect(stat(folder)).rejects.toMatchObject({ code: 'ENOENT' });
}, 120_000);
