import type { Publisher } from '../../shared/publish';
import { FaceWatcher, type TracksEvent } from '../../shared/watch';
import { publishClip, useStandardScene, waitFor, type WatchHarness } from './support/room';

// The tracks event through a real WebRTC room, on the standard clip (A 3 s, the stranger B 3 s,
// nobody 2 s, looped): each face boxed on consecutive samples with its verdict so far, and an empty
// list once the faces are gone, with a still now and then.

let h: WatchHarness;
let clip: string;
let collectionId: string;
let faceA: string;

useStandardScene('tracks-', 180_000, ({ h: harness, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
});

let publisher: Publisher | undefined;
let watcher: FaceWatcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  await publisher?.close();
});

/** The verdicts a track had, in the order of the events that listed it. */
function verdictsOf(events: readonly TracksEvent[], track: number): string[] {
  return events.flatMap((e) => e.tracks.filter((t) => t.track === track).map((t) => t.verdict));
}

test('every face in view is listed at each sample with its verdict so far (pending, then person or unknown), and the list empties when they leave', async () => {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, tracks: true, stillEverySeconds: 1 });
  const events: TracksEvent[] = [];
  watcher.on('tracks', (e) => events.push(e));
  await watcher.start();
  publisher = await publishClip(h, room.id, clip);
  const trackOfA = (): number | undefined => events.flatMap((e) => e.tracks).find((t) => t.face_id === faceA)?.track;
  const strangers = (): number[] => [...new Set(events.flatMap((e) => e.tracks).filter((t) => t.verdict === 'unknown').map((t) => t.track))];
  // A's track, then the stranger's, then nobody: an empty list after a listed face.
  await waitFor('A named, a stranger judged, and the faces gone', () => {
    const a = trackOfA();
    if (a === undefined || strangers().length === 0) return false;
    const lastOfA = events.findLastIndex((e) => e.tracks.some((t) => t.track === a));
    return events.slice(lastOfA + 1).some((e) => e.tracks.length === 0);
  }, 120_000);
  await watcher.stop();

  const a = trackOfA()!;
  const listing = events.map((e, i) => ({ i, box: e.tracks.find((t) => t.track === a) })).filter((x) => x.box);
  // Boxed on consecutive events while in view (at least 1.5 s of samples at 2 a second), moving with the face.
  expect(listing.length).toBeGreaterThanOrEqual(3);
  const consecutive = listing.filter((x, k) => k > 0 && listing[k - 1].i === x.i - 1).length;
  expect(consecutive).toBeGreaterThanOrEqual(2);
  for (const { box } of listing) {
    expect(box!.location.right).toBeGreaterThan(box!.location.left);
    expect(box!.location.bottom).toBeGreaterThan(box!.location.top);
  }
  // Pending until its compare came back, then the person for good (label null: no labels given).
  const verdicts = verdictsOf(events, a);
  expect(verdicts[0]).toBe('pending');
  expect(verdicts.slice(verdicts.indexOf('person'))).toEqual(verdicts.slice(verdicts.indexOf('person')).map(() => 'person'));
  expect(listing.find((x) => x.box!.verdict === 'person')!.box).toMatchObject({ face_id: faceA, label: null });
  // The stranger's track was pending first too.
  expect(verdictsOf(events, strangers()[0])[0]).toBe('pending');
  // Each event names its stream and frame; the frame times never go back.
  const streamId = events[0].stream_id;
  for (const e of events) expect(e).toMatchObject({ event: 'tracks', room: room.id, stream_id: streamId, width: expect.any(Number), height: expect.any(Number) });
  const times = events.map((e) => Date.parse(e.frame_time));
  expect(times.every((t, k) => k === 0 || t >= times[k - 1])).toBe(true);
  // Stills: JPEGs no larger than 640 px a side, at most one a second on the stream.
  const stills = events.filter((e) => e.still);
  expect(stills.length).toBeGreaterThanOrEqual(2);
  for (const s of stills) expect(s.still!.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  const gaps = stills.slice(1).map((s, k) => Date.parse(s.frame_time) - Date.parse(stills[k].frame_time));
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(990);
}, 180_000);

test('without the tracks option there is no tracks event', async () => {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId });
  let tracks = 0;
  let analysed = 0;
  watcher.on('tracks', () => tracks++);
  watcher.on('arrived', () => analysed++);
  await watcher.start();
  publisher = await publishClip(h, room.id, clip);
  await waitFor('an arrival', () => analysed > 0, 60_000);
  expect(tracks).toBe(0);
}, 90_000);
