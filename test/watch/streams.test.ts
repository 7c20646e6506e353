import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import type { Publisher } from '../../shared/publish';
import { isClientError } from '../../shared/errors';
import { FaceWatcher, type ErrorEvent, type MatchEvent, type StatusEvent, type UnknownEvent, type WatchEvent } from '../../shared/watch';
import { astronautFaceOfSize, mirrorJpeg } from '../support/images';
import { encodeClip, faceOfB, loadPeople, type People } from '../support/clip';
import { collect, during, publishClip, startWatchHarness, waitFor, type WatchHarness } from './support/room';

// Faces of other sizes and numbers, several publishers in one room, and what bad input gets. A face
// below minFaceSize, and the room's streams coming, going and missing, are checked on plain inputs
// in units/visits.test.ts and units/room-streams.test.ts.

let h: WatchHarness;
let dir: string;
let people: People;
let collectionId: string;
let faceA: string;
let pair: string;
let onlyA: string;
let onlyB: string;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'watch-streams-'));
  people = loadPeople(await faceOfB((jpeg) => h.vision.detectFaces(jpeg)));
  collectionId = (await h.vision.createCollection()).collectionId;
  faceA = (await h.vision.addFace(collectionId, mirrorJpeg(astronautFaceOfSize(220)))).faceId;
  // A's face about 80 px (below the API's 120) beside B's at 150 px, in one frame.
  pair = await encodeClip(dir, 'pair', [
    { placements: [{ person: people.a, faceSide: 80, cx: 170, cy: 220 }, { person: people.b, faceSide: 150, cx: 450, cy: 220 }], seconds: 3, drift: 3 },
  ]);
  onlyA = await encodeClip(dir, 'a', [{ placements: [{ person: people.a, faceSide: 150, cx: 320, cy: 220 }], seconds: 3, drift: 3 }]);
  onlyB = await encodeClip(dir, 'b', [{ placements: [{ person: people.b, faceSide: 150, cx: 320, cy: 220 }], seconds: 3, drift: 3 }]);
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const publishers: Publisher[] = [];
let watcher: FaceWatcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
  await Promise.all(publishers.splice(0).map((p) => p.close()));
});

const matches = (events: WatchEvent[]) => events.filter((e): e is MatchEvent => e.event === 'match');
const unknowns = (events: WatchEvent[]) => events.filter((e): e is UnknownEvent => e.event === 'unknown');

test('a face below 120 px is scaled up and matched; two faces in one frame are both compared', async () => {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, loopbackOnly: true, labels: { [faceA]: 'Eileen' }, drawBoxes: true });
  const events = collect((n, fn) => watcher!.on(n, fn));
  await watcher.start();
  publishers.push(await publishClip(h, room.id, pair));
  await waitFor('a match for A and an unknown for B', () => matches(events).length > 0 && unknowns(events).length > 0);
  const [m] = matches(events);
  expect(m).toMatchObject({ face_id: faceA, label: 'Eileen' });
  // A's box in the frame is well under the API's 120 px: only a scaled-up crop could have matched.
  expect(m.location.right - m.location.left).toBeLessThan(120);
  expect(m.location.right).toBeLessThan(320);
  expect(unknowns(events)[0].location.left).toBeGreaterThan(320);
  expect(m.snapshot_boxes?.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(m.snapshot_boxes?.equals(m.snapshot)).toBe(false);
  // Where the time went: every part measured, together no more than the event's latency.
  const t = m.timing_ms!;
  expect(t.detect).toBeGreaterThan(0);
  expect(t.compare).toBeGreaterThan(0);
  expect(t.decode + t.snapshot + t.detect + t.crop + t.compare).toBeLessThanOrEqual(m.latency_ms + 1);
  const s = watcher.stats;
  expect(s.faces.compared).toBeGreaterThanOrEqual(2);
  expect(s.faces.skippedSmall).toBe(0);
});

test('two publishers in one room: events carry the two stream ids, stream labels too; stats per stream', async () => {
  const room = await h.streaming.createRoom();
  const pa = await publishClip(h, room.id, onlyA);
  const pb = await publishClip(h, room.id, onlyB);
  publishers.push(pa, pb);
  watcher = new FaceWatcher({
    vision: h.vision,
    streaming: h.streaming,
    roomId: room.id,
    collectionId,
    loopbackOnly: true,
    labels: { [pa.clientId!]: 'front door', [pb.clientId!]: 'garage' },
  });
  const events = collect((n, fn) => watcher!.on(n, fn));
  await watcher.start();
  await waitFor('a match and an unknown', () => matches(events).length > 0 && unknowns(events).length > 0);
  expect(matches(events)[0]).toMatchObject({ stream_id: pa.clientId, stream_label: 'front door', face_id: faceA });
  expect(unknowns(events)[0]).toMatchObject({ stream_id: pb.clientId, stream_label: 'garage' });
  expect(Object.keys(watcher.stats.streams).sort()).toEqual([pa.clientId, pb.clientId].sort());
  for (const id of [pa.clientId!, pb.clientId!]) expect(watcher.stats.streams[id].frames.decoded).toBeGreaterThan(0);
});

test('streams: only the named stream is watched; a named stream that never appears is reported missing', async () => {
  const room = await h.streaming.createRoom();
  const pa = await publishClip(h, room.id, onlyA);
  const pb = await publishClip(h, room.id, onlyB);
  publishers.push(pa, pb);
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, loopbackOnly: true, streams: [pb.clientId!, 'no-such-camera'], streamWaitSeconds: 2 });
  const events = collect((n, fn) => watcher!.on(n, fn));
  await watcher.start();
  await waitFor('the missing stream reported', () => events.some((e) => e.event === 'status' && !!(e as StatusEvent).missing_streams));
  await waitFor('the unknown on the watched stream', () => unknowns(events).length > 0);
  const status = events.find((e): e is StatusEvent => e.event === 'status' && !!e.missing_streams)!;
  expect(status.missing_streams).toEqual(['no-such-camera']);
  expect(status.state).toBe('watching');
  await during(1500);
  expect(matches(events)).toEqual([]);
  expect(Object.keys(watcher.stats.streams)).toEqual([pb.clientId]);
});

test('publishers in another codec than the one asked for: a status says so and names the codec to ask for', async () => {
  const room = await h.streaming.createRoom();
  const h264 = await encodeClip(dir, 'b-h264', [{ placements: [{ person: people.b, faceSide: 150, cx: 320, cy: 220 }], seconds: 2, drift: 3 }], { codec: 'H264' });
  publishers.push(await publishClip(h, room.id, h264));
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, streamWaitSeconds: 1 });
  const events = collect((n, fn) => watcher!.on(n, fn));
  await watcher.start();
  await waitFor('the codec status', () => events.some((e) => e.event === 'status' && e.publishers_in_other_codecs !== undefined));
  const status = events.find((e): e is StatusEvent => e.event === 'status' && e.publishers_in_other_codecs !== undefined)!;
  expect(status).toMatchObject({ state: 'watching', publishers_in_other_codecs: 1 });
  expect(status.detail).toMatch(/none sends VP8: ask for VP9 or H264/);
  expect(watcher.stats.frames.received).toBe(0);
});

test('stop() leaves no child process, socket or timer behind', async () => {
  const room = await h.streaming.createRoom();
  await during(300);
  const before = resources();
  const publisher = await publishClip(h, room.id, onlyA);
  // The watcher builds (and so owns) its clients here. HTTP keep-alive connections belong to the
  // dispatcher (shared by every client by default, and kept for reuse): this one is the test's own.
  const dispatcher = new Agent();
  const w = new FaceWatcher({
    vision: { ...h.credentials, visionUrl: h.sandbox.url, dispatcher },
    streaming: { ...h.credentials, sfuUrl: h.sandbox.url, dispatcher },
    roomId: room.id,
    collectionId,
    decoder: 'ffmpeg',
    loopbackOnly: true,
  });
  const events = collect((n, fn) => w.on(n, fn));
  await w.start();
  await waitFor('a match', () => matches(events).length > 0);
  expect(childFfmpegs()).toBeGreaterThan(0);
  const during_ = resources();
  expect(during_.UDPWrap ?? 0).toBeGreaterThan(before.UDPWrap ?? 0);
  await w.stop();
  await w.stop();
  expect(childFfmpegs()).toBe(0);
  await publisher.close();
  await dispatcher.close();
  // The sandbox runs in this process and winds its side down on its own timers: wait (a few seconds
  // at most) for the counts to come back; a leaked watcher timer (each of its own runs 10 s or more) stays.
  const kinds = ['UDPWrap', 'ProcessWrap', 'Timeout', 'TCPSocketWrap', 'PipeWrap'];
  const show = (r: Record<string, number>) => kinds.map((k) => `${k}: ${r[k] ?? 0}`).join(', ');
  await waitFor('the counts back where they were', () => show(resources()) === show(before), 5000).catch(() => undefined);
  expect(show(resources())).toBe(show(before));
  expect(events.at(-1)).toMatchObject({ event: 'status', state: 'stopped' });
});

describe('bad input', () => {
  test('options are checked in the constructor, naming the field and the limit', () => {
    const base = { vision: h.vision, streaming: h.streaming, roomId: 'r', collectionId: 'c' };
    expect(() => new FaceWatcher({ ...base, fps: 0 })).toThrow(expect.objectContaining({ code: 'invalid_input', field: 'fps', limit: '0.1..30' }));
    expect(() => new FaceWatcher({ ...base, threshold: 2 })).toThrow(expect.objectContaining({ field: 'threshold' }));
    expect(() => new FaceWatcher({ ...base, roomId: '' })).toThrow(expect.objectContaining({ field: 'roomId' }));
    expect(() => new FaceWatcher({ ...base, events: ['nope' as never] })).toThrow(expect.objectContaining({ field: 'events' }));
    expect(() => new FaceWatcher({ ...base, labels: { x: 3 as never } })).toThrow(expect.objectContaining({ field: 'labels.x' }));
  });

  test('start() rejects with a ClientError for an unknown room, an unknown collection, bad credentials', async () => {
    const room = await h.streaming.createRoom();
    const cases: [Partial<ConstructorParameters<typeof FaceWatcher>[0]>, RegExp][] = [
      [{ roomId: 'no-such-room' }, /no-such-room/],
      [{ collectionId: 'no-such-collection' }, /no-such-collection/],
      [{ streaming: { ...h.credentials, clientSecret: 'wrong', sfuUrl: h.sandbox.url }, vision: { ...h.credentials, clientSecret: 'wrong', visionUrl: h.sandbox.url } }, /401|invalid_client|authenticat/i],
    ];
    for (const [change, message] of cases) {
      const w = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, loopbackOnly: true, ...change });
      const err = await w.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isClientError(err)).toBe(true);
      expect(String((err as Error).message)).toMatch(message);
      expect(String((err as Error).message)).not.toContain('wrong');
      await w.stop();
    }
  });

  test('no decoder for the codec: start() says so before joining', async () => {
    const room = await h.streaming.createRoom();
    const w = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, decoder: 'ffmpeg', ffmpegPath: path.join(dir, 'no-ffmpeg-here') });
    const err = (await w.start().catch((e: unknown) => e)) as { code?: string; message: string };
    expect(isClientError(err)).toBe(true);
    expect(err.message).toMatch(/VP8/);
    expect(err.message).toMatch(/ffmpeg/);
    await w.stop();
  });

  test('a listener that throws does not stop the watcher', async () => {
    const room = await h.streaming.createRoom();
    publishers.push(await publishClip(h, room.id, onlyA));
    watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, loopbackOnly: true });
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      watcher.on('status', () => {
        throw new Error('host bug');
      });
      const events = collect((n, fn) => watcher!.on(n, fn));
      await watcher.start();
      await waitFor('a match', () => matches(events).length > 0);
      expect(events.filter((e) => e.event === 'status').length).toBeGreaterThanOrEqual(2);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ name: 'ListenerError', message: expect.stringMatching(/'status' listener of FaceWatcher threw: Error: host bug/) }));
      await watcher.stop();
    } finally {
      warn.mockRestore();
    }
  });
});

function resources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

function childFfmpegs(): number {
  try {
    const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out.split('\n').filter((l) => /ffmpeg/.test(l) && /rawvideo|pipe:0|-i/.test(l)).length;
  } catch {
    return 0;
  }
}

export type { ErrorEvent };
