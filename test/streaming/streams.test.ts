import { InputError } from '../../shared/errors';
import type { Publisher } from '../../shared/publish';
import type { StreamAddedInfo } from '../../shared/signaling';
import { decodeFrames } from './support/ffmpeg';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { Viewer, startPublisher } from './support/peers';

let h: StreamingHarness;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await h.sandbox.reset();
});
afterAll(async () => {
  await h.stop();
});

/** A viewer that also records its stream events, in order. */
function streamViewer(roomId: string): { viewer: Viewer; added: StreamAddedInfo[]; removed: string[]; order: string[] } {
  const viewer = new Viewer(h.client, roomId, 'VP8');
  closers.push(() => viewer.close());
  const added: StreamAddedInfo[] = [];
  const removed: string[] = [];
  const order: string[] = [];
  viewer.session.on('connected', () => order.push('connected'));
  viewer.session.on('streamAdded', (info) => {
    added.push(info);
    order.push(`added ${info.streamId}`);
  });
  viewer.session.on('streamRemoved', ({ streamId }) => {
    removed.push(streamId);
    order.push(`removed ${streamId}`);
  });
  viewer.session.on('frame', ({ streamId }) => {
    if (!order.includes(`frame ${streamId}`)) order.push(`frame ${streamId}`);
  });
  return { viewer, added, removed, order };
}

async function publisher(roomId: string, width = 320, height = 240): Promise<Publisher> {
  const pub = await startPublisher(h.client, roomId, { width, height });
  closers.push(() => pub.close());
  return pub;
}

function framesOf(viewer: Viewer, streamId: string | undefined): number {
  return viewer.frames.filter((f) => f.streamId === streamId).length;
}

test('each publisher is a stream named by its client_id: added, tagged on every frame, removed when it leaves', async () => {
  const room = await h.client.createRoom();
  const a = await publisher(room.id);
  const { viewer, added, removed, order } = streamViewer(room.id);
  await viewer.start();
  expect(a.clientId).toEqual(expect.any(String));
  await waitFor('frames of A', () => framesOf(viewer, a.clientId) >= 10, 15_000);
  expect(added).toEqual([{ streamId: a.clientId, codec: 'VP8', trackId: expect.any(String) }]);
  // connected, then the stream, then its frames, which carry the stream's track id too.
  expect(order).toEqual(['connected', `added ${a.clientId}`, `frame ${a.clientId}`]);
  expect(viewer.frames[0].trackId).toBe(added[0].trackId);
  expect([...viewer.session.streams]).toEqual([[a.clientId, { codec: 'VP8' }]]);

  const b = await publisher(room.id, 160, 120);
  expect(b.clientId).toEqual(expect.any(String));
  expect(b.clientId).not.toBe(a.clientId);
  await waitFor('frames of B', () => framesOf(viewer, b.clientId) >= 10, 15_000);
  expect(added.map((s) => s.streamId)).toEqual([a.clientId, b.clientId]);
  expect(new Set(viewer.session.streams.keys())).toEqual(new Set([a.clientId, b.clientId]));
  // Every frame is tagged, and each stream's frames are its own publisher's (they differ in size).
  expect(viewer.frames.every((f) => f.streamId === a.clientId || f.streamId === b.clientId)).toBe(true);
  expect(new Set(viewer.frames.filter((f) => f.streamId === b.clientId && f.width).map((f) => f.width))).toEqual(new Set([160]));
  const ofB = viewer.frames.filter((f) => f.streamId === b.clientId).slice(0, 10);
  expect(ofB[0].isKeyframe).toBe(true);
  expect((await decodeFrames(ofB)).errors).toBe('');

  // A leaves: its stream is removed, B goes on.
  const aId = a.clientId;
  await a.close();
  await waitFor('A removed', () => removed.includes(aId as string), 15_000);
  expect([...viewer.session.streams.keys()]).toEqual([b.clientId]);
  const bBefore = framesOf(viewer, b.clientId);
  await waitFor('B goes on', () => framesOf(viewer, b.clientId) >= bBefore + 10, 15_000);

  // A third publisher is a new stream under its own id, never A's.
  const aAfter = framesOf(viewer, aId);
  const c = await publisher(room.id);
  await waitFor('frames of C', () => framesOf(viewer, c.clientId) >= 10, 15_000);
  expect(c.clientId).not.toBe(aId);
  expect(added.map((s) => s.streamId)).toEqual([aId, b.clientId, c.clientId]);
  expect(framesOf(viewer, aId)).toBe(aAfter);
  const ofC = viewer.frames.filter((f) => f.streamId === c.clientId).slice(0, 10);
  expect(ofC[0].isKeyframe).toBe(true);
  expect((await decodeFrames(ofC)).errors).toBe('');
  expect(removed).toEqual([aId]);
  expect(order.filter((e) => !e.startsWith('frame'))).toEqual(['connected', `added ${aId}`, `added ${b.clientId}`, `removed ${aId}`, `added ${c.clientId}`]);
});

test('requestKeyframe(streamId) reaches that stream\'s publisher; closing the session removes every stream', async () => {
  const room = await h.client.createRoom();
  const a = await startPublisher(h.client, room.id, { gop: 60 });
  closers.push(() => a.close());
  const { viewer, added, removed } = streamViewer(room.id);
  await viewer.start();
  await waitFor('frames of A', () => framesOf(viewer, a.clientId) >= 5, 15_000);
  expect(() => viewer.session.requestKeyframe(42 as unknown as string)).toThrow(InputError);
  expect(() => viewer.session.requestKeyframe('no-such-stream')).not.toThrow();

  let plis = 0;
  a.on('keyframeRequest', () => plis++);
  const sent = viewer.session.stats.keyframeRequests;
  // The SFU spaces requests to one publisher 100 ms apart: ask until one gets through.
  for (let i = 0; i < 100 && plis === 0; i++) {
    viewer.session.requestKeyframe(a.clientId);
    await new Promise((r) => setTimeout(r, 150));
  }
  expect(plis).toBeGreaterThan(0);
  expect(viewer.session.stats.keyframeRequests).toBeGreaterThan(sent);

  await viewer.close();
  expect(removed).toEqual([added[0].streamId]);
  expect(viewer.session.streams.size).toBe(0);
});

test('a viewer that rejoins sees its streams removed, then added again', async () => {
  const room = await h.client.createRoom();
  const a = await publisher(room.id);
  const { viewer, added, removed } = streamViewer(room.id);
  const rejoined = new Promise<void>((r) => viewer.session.on('connected', ({ joins }) => joins === 2 && r()));
  await viewer.start();
  await waitFor('frames of A', () => framesOf(viewer, a.clientId) >= 5, 15_000);
  const firstId = a.clientId;
  await h.admin('drop-sockets', { room: room.id });
  await rejoined;
  await waitFor('A again under a new id', () => a.clientId !== firstId && framesOf(viewer, a.clientId) >= 5, 15_000);
  expect(removed).toEqual([firstId]);
  // The publisher rejoined too (its socket was dropped as well), under a new client_id.
  expect(added.map((s) => s.streamId)).toEqual([firstId, a.clientId]);
  expect([...viewer.session.streams.keys()]).toEqual([a.clientId]);
});
