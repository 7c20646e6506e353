import type { Publisher } from '../../shared/publish';
import { FaceWatcher, type MatchEvent, type UnknownEvent, type WatchEvent } from '../../shared/watch';
import { encodeClip } from '../support/clip';
import { collect, during, loopMs, publishClip, useStandardScene, waitFor, type WatchHarness } from './support/room';

// The standard clip: A (the astronaut) 3 s, then B (a stranger from face-api's demo photo) 3 s, then
// nobody 2 s, looped, 10 fps VP8. The collection holds A, enrolled from another image of A (a mirrored,
// differently scaled crop of the same photo).

let h: WatchHarness;
let clip: string;
let clipH264: string;
let collectionId: string;
let faceA: string;
let loop: number;
// The werift-off project (jest.config.js) runs one case here, the receive path end to end on werift as
// published; which decoder and codec the frames then meet is the same on either path, and runs here once.
const weriftOff = process.env.VS_WERIFT_SPEEDUPS === '0';

useStandardScene('watch-', 120_000, async ({ h: harness, dir, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
  loop = loopMs(scene.segments);
  if (!weriftOff) clipH264 = await encodeClip(dir, 'standard-h264', scene.segments, { codec: 'H264' });
});

const faceEvents = (events: WatchEvent[]) => events.filter((e): e is MatchEvent | UnknownEvent => e.event === 'match' || e.event === 'unknown');

describe.each(weriftOff ? (['ffmpeg'] as const) : (['ffmpeg', 'wasm'] as const))('the standard clip, decoder %s', (decoder) => {
  let publisher: Publisher | undefined;
  let watcher: FaceWatcher | undefined;
  afterEach(async () => {
    await watcher?.stop();
    await publisher?.close();
  });

  test('exactly one match for A within the cooldown, one unknown per appearance of B, nothing for empty frames', async () => {
    const room = await h.streaming.createRoom();
    watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, decoder, loopbackOnly: true, cooldownSeconds: 600 });
    const events = collect((n, fn) => watcher!.on(n, fn));
    await watcher.start();
    publisher = await publishClip(h, room.id, clip);
    const streamId = publisher.clientId;
    await waitFor('a match and an unknown', () => faceEvents(events).some((e) => e.event === 'match') && faceEvents(events).some((e) => e.event === 'unknown'), 90_000);
    // One more whole loop: A comes back within the cooldown, B comes back as a new appearance.
    await during(loop + 1000);
    await watcher.stop();
    const faces = faceEvents(events);
    const matches = faces.filter((e): e is MatchEvent => e.event === 'match');
    const unknowns = faces.filter((e): e is UnknownEvent => e.event === 'unknown');
    expect(matches).toHaveLength(1);
    expect(matches[0]).toMatchObject({ face_id: faceA, room: room.id, stream_id: streamId, label: null });
    expect(matches[0].score).toBeGreaterThanOrEqual(0.7);
    expect(matches[0].snapshot.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(new Date(matches[0].time).getTime()).not.toBeNaN();
    // B: an unknown per track, never two for one track; at most one per loop the watcher saw.
    expect(unknowns.length).toBeGreaterThanOrEqual(1);
    expect(new Set(unknowns.map((u) => u.track)).size).toBe(unknowns.length);
    expect(unknowns.length).toBeLessThanOrEqual(3);
    for (const u of unknowns) expect(u.score).toBeLessThan(0.7);
    // Every face event names a face near where the clip puts one; the empty segment gave none.
    for (const e of faces) {
      expect(e.stream_id).toBe(streamId);
      expect(e.location.left).toBeGreaterThan(180);
      expect(e.location.right).toBeLessThan(500);
    }
    const s = watcher.stats;
    expect(s.decoder).toBe(decoder);
    // On in the tests project, off in the werift-off one (jest.config.js), as the file was started.
    expect(s.werift.enabled).toBe(process.env.VS_WERIFT_SPEEDUPS !== '0');
    expect(s.streams[streamId!]).toBeDefined();
    expect(s.frames.decoded).toBeGreaterThan(50);
    // What keeps the calls down is the gate and the tracker, not how many samples a loaded machine
    // takes: one detect per sample the gate let through, and fewer than half let through; a compare per
    // new face track (two crops at most), not per sample.
    expect(s.api.detect).toBe(s.samples.analysed);
    expect(s.samples.analysed * 2).toBeLessThan(s.samples.taken);
    expect(s.samples.skippedGate).toBeGreaterThan(0);
    expect(s.api.compare).toBeLessThanOrEqual(s.faces.tracks * 2);
    expect(events.filter((e) => e.event === 'error')).toEqual([]);
    expect(events.filter((e) => e.event === 'status').map((e) => (e as { state: string }).state)).toEqual(['joining', 'watching', 'stopped']);
  }, 150_000);
});

if (!weriftOff) {
  test('H264 (Baseline) through the wasm decoder: the match and the unknown', async () => {
    const room = await h.streaming.createRoom();
    const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, decoder: 'wasm', codec: 'H264', loopbackOnly: true });
    let publisher: Publisher | undefined;
    try {
      const events = collect((n, fn) => watcher.on(n, fn));
      await watcher.start();
      publisher = await publishClip(h, room.id, clipH264);
      await waitFor('a match and an unknown', () => faceEvents(events).some((e) => e.event === 'match') && faceEvents(events).some((e) => e.event === 'unknown'), 90_000);
      expect(faceEvents(events).find((e) => e.event === 'match')).toMatchObject({ face_id: faceA, stream_id: publisher.clientId });
      expect(watcher.stats.streams[publisher.clientId!].codec).toBe('H264');
      expect(watcher.stats.decoder).toBe('wasm');
    } finally {
      await watcher.stop();
      await publisher?.close();
    }
  }, 150_000);
}
