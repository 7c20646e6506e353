import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Publisher } from '../../shared/publish';
import { FaceWatcher, type MatchEvent, type UnknownEvent, type WatchEvent } from '../../shared/watch';
import { decode } from '../support/images';
import { encodeClip } from './support/clip';
import { collect, publishClip, standardScene, startWatchHarness, waitFor, type WatchHarness } from './support/room';

// Every face the detector sees ends in an event, and every face event carries the face: the standard
// clip (A, the stranger B, nobody) through a real WebRTC room, with the service's compare answering
// face_not_found when told to.

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let faceA: string;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'strangers-'));
  const scene = await standardScene(h);
  ({ collectionId, faceA } = scene);
  clip = await encodeClip(dir, 'standard', scene.segments);
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let publisher: Publisher | undefined;
let watcher: FaceWatcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  await publisher?.close();
  await h.sandbox.clearFaults();
  watcher = publisher = undefined;
});

const faceEvents = (events: WatchEvent[]) => events.filter((e): e is MatchEvent | UnknownEvent => e.event === 'match' || e.event === 'unknown');

async function watch(): Promise<WatchEvent[]> {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, cooldownSeconds: 600 });
  const events = collect((n, fn) => watcher!.on(n, fn));
  await watcher.start();
  publisher = await publishClip(h, room.id, clip);
  return events;
}

test('a face compare cannot use ends in an unknown (score null, reason not_comparable) with its crop, after the retries', async () => {
  await h.sandbox.setFaults({ compare_collection: { faceNotFound: 1 } });
  const events = await watch();
  await waitFor('two unknown faces', () => faceEvents(events).length >= 2, 90_000);
  await watcher!.stop();
  const faces = faceEvents(events);
  // Neither A nor B could be compared: both are unknown, none is lost.
  expect(faces.every((e) => e.event === 'unknown')).toBe(true);
  for (const e of faces as UnknownEvent[]) {
    expect(e).toMatchObject({ score: null, reason: 'not_comparable' });
    expect(e.face.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(e.snapshot.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  }
  const s = watcher!.stats.faces;
  expect(s.notComparable).toBeGreaterThanOrEqual(2);
  expect(s.notFoundByCompare).toBe(s.notComparable);
  // Each face was tried more than once: other crops (and the whole frame, where it fits) before giving up.
  expect(s.retried).toBeGreaterThanOrEqual(2 * s.notComparable);
  expect(s.recovered).toBe(0);
  expect(events.filter((e) => e.event === 'error')).toEqual([]);
}, 150_000);

test('match and unknown carry the face crop, inside the 120..280 rule: it enrols as it is', async () => {
  const events = await watch();
  await waitFor('a match and an unknown', () => faceEvents(events).some((e) => e.event === 'match') && faceEvents(events).some((e) => e.event === 'unknown'), 90_000);
  const faces = faceEvents(events);
  const match = faces.find((e): e is MatchEvent => e.event === 'match')!;
  const unknown = faces.find((e): e is UnknownEvent => e.event === 'unknown')!;
  expect(match.face_id).toBe(faceA);
  expect(unknown.score).not.toBeNull();
  expect(unknown).not.toHaveProperty('reason');
  for (const e of [match, unknown]) {
    const image = decode(e.face);
    expect(image.width).toBeLessThan(640);
    const [found] = await h.vision.detectFaces(e.face);
    const side = [found.location.right - found.location.left, found.location.bottom - found.location.top];
    expect(Math.min(...side)).toBeGreaterThanOrEqual(120);
    expect(Math.max(...side)).toBeLessThanOrEqual(280);
  }
  // The stranger's crop is enrolled in one step, and the next compare of it finds that face.
  const other = await h.vision.createCollection().catch(() => undefined);
  const target = other?.collectionId ?? collectionId;
  const added = await h.vision.addFace(target, unknown.face);
  const again = await h.vision.compareWithCollection(target, unknown.face, { maxResults: 5 });
  expect(again.target.faces.map((f) => f.faceId)).toContain(added.faceId);
  await h.vision.removeFace(target, added.faceId);
  if (other) await h.vision.deleteCollection(other.collectionId);
}, 150_000);
