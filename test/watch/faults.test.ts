import type { Publisher } from '../../shared/publish';
import { FaceWatcher, type MatchEvent, type StatusEvent, type UnknownEvent } from '../../shared/watch';
import { collect, during, loopMs, publishClip, useStandardScene, waitFor, type WatchHarness } from './support/room';

// The standard clip (A 3 s, B 3 s, nobody 2 s, looped) with a quarter of the vision calls failing
// (throttling and server errors) and two dropped signaling sockets: the viewer's own, then every
// socket of the room (the publisher rejoins too, under a new stream id). A spent quota's pause is
// checked on a fake clock in units/reporter.test.ts and units/visits.test.ts.

let h: WatchHarness;
let clip: string;
let collectionId: string;
let faceA: string;
let loop: number;

useStandardScene('watch-faults-', 120_000, ({ h: harness, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
  loop = loopMs(scene.segments);
});

let publisher: Publisher | undefined;
let watcher: FaceWatcher | undefined;
afterEach(async () => {
  h.sandbox.clearFaults();
  await watcher?.stop();
  await publisher?.close();
});

async function admin(action: string, body: unknown): Promise<{ dropped?: number; sessions?: { role: string; room: string }[] }> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/streaming/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as { dropped?: number };
}

test('25% API faults and two dropped sockets: no event lost, none duplicated', async () => {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({
    vision: h.vision,
    streaming: h.streaming,
    roomId: room.id,
    collectionId,
    loopbackOnly: true,
    cooldownSeconds: 600,
    cooldownScope: 'room',
    session: { rejoin: { baseDelayMs: 50, maxDelayMs: 300 } },
  });
  const events = collect((n, fn) => watcher!.on(n, fn));
  const rule = { tooManyRequests: 0.1, serverError: 0.1, timeout: 0.05, seed: 3 };
  h.sandbox.setFaults({ detect_faces: rule, compare_collection: { ...rule, seed: 4 } });
  await watcher.start();
  publisher = await publishClip(h, room.id, clip);
  const faces = () => events.filter((e): e is MatchEvent | UnknownEvent => e.event === 'match' || e.event === 'unknown');
  const watching = () => events.filter((e) => e.event === 'status' && (e as StatusEvent).state === 'watching').length;
  await waitFor('the first face event', () => faces().length > 0, 90_000);
  // The watcher joined first, so it is the first session of the room: drop only its socket.
  const first = (await admin('sessions', {})).sessions?.filter((s) => s.room === room.id)[0];
  expect(first?.role).toBe('down');
  expect((await admin('drop-sockets', { room: room.id, count: 1 })).dropped).toBe(1);
  await waitFor('the watcher back', () => watching() >= 2, 60_000);
  await during(4000);
  expect((await admin('drop-sockets', { room: room.id })).dropped).toBe(2);
  await waitFor('the watcher back again', () => watching() >= 3, 60_000);
  await waitFor('a match and an unknown', () => faces().some((e) => e.event === 'match') && faces().some((e) => e.event === 'unknown'), 90_000);
  // One more whole loop: A again within the cooldown, B again.
  await during(loop + 1000);
  await watcher.stop();
  const states = events.filter((e): e is StatusEvent => e.event === 'status').map((e) => e.state);
  expect(states.filter((s) => s === 'rejoining').length).toBeGreaterThanOrEqual(2);
  const matches = faces().filter((e) => e.event === 'match') as MatchEvent[];
  const unknowns = faces().filter((e) => e.event === 'unknown') as UnknownEvent[];
  // A: exactly one match (the cooldown is the room's, so a publisher that came back under a new stream id does not repeat it).
  expect(matches).toHaveLength(1);
  expect(matches[0].face_id).toBe(faceA);
  // B: at least one unknown, never two for one track of one stream.
  expect(unknowns.length).toBeGreaterThanOrEqual(1);
  expect(new Set(unknowns.map((u) => `${u.stream_id}/${u.track}`)).size).toBe(unknowns.length);
  for (const u of unknowns) expect(u.score).toBeLessThan(0.7);
  // The client's retries absorbed the faults: nothing reached the events as a failure.
  expect(events.filter((e) => e.event === 'error')).toEqual([]);
  expect(watcher.stats.api.failed).toBe(0);
  // Faults were really injected: the service saw more requests than the watcher made calls (the retries).
  const seen = h.sandbox.stats().byEndpoint as Record<string, number>;
  const made = watcher.stats.api.detect + watcher.stats.api.compare;
  expect(seen.detect_faces + seen.compare_collection).toBeGreaterThan(made);
}, 240_000);
