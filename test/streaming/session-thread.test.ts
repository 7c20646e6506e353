import { InputError } from '../../shared/errors';
import { SignalingError } from '../../shared/signaling/close-reasons';
import { receivePool, receiveWorkers, setReceiveWorkers } from '../../shared/signaling/receive-pool';
import { ThreadSession, type ThreadSessionOptions } from '../../shared/signaling/session-thread';
import { weriftSpeedupsStatus } from '../../shared/signaling/werift-speedups';
import type { EncodedFrame } from '../../shared/frames';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { startPublisher } from './support/peers';

// The receive path in a worker thread: run from sources here (the worker compiles the package's
// modules it loads), from dist in the hosts.

let h: StreamingHarness;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  setReceiveWorkers('auto');
  await h.sandbox.reset();
});
afterAll(async () => {
  await h.stop();
});

test('a session in a worker thread joins, announces the stream, delivers whole frames and asks for key frames', async () => {
  const room = await h.client.createRoom();
  const pub = await startPublisher(h.client, room.id, { gop: 60 });
  closers.push(() => pub.close());
  let plis = 0;
  pub.on('keyframeRequest', () => plis++);
  const session = new ThreadSession({ role: 'downstream', channelId: room.id, video: { codec_type: 'VP8' }, audio: false, getTicket: h.client.ticketSource(room.id, 'down'), loopbackOnly: true });
  closers.push(() => session.close());
  const frames: EncodedFrame[] = [];
  const added: string[] = [];
  session.on('frame', (f) => frames.push(f));
  session.on('streamAdded', ({ streamId }) => added.push(streamId));
  // A host listener that throws is reported, and the frames go on.
  const reported: unknown[] = [];
  session.on('listenerError', (info) => reported.push(info));
  session.on('frame', () => {
    throw new Error('a broken listener');
  });
  const info = await session.start();
  expect(info.joins).toBe(1);
  expect(session.weriftStatus).toEqual(weriftSpeedupsStatus());
  await waitFor('20 frames', () => frames.length >= 20, 15_000);
  expect(reported.length).toBeGreaterThanOrEqual(20);
  expect(added).toEqual([pub.clientId]);
  expect(session.streams.has(pub.clientId as string)).toBe(true);
  expect(frames[0]).toMatchObject({ codec: 'VP8', isKeyframe: true, streamId: pub.clientId, width: 320, height: 240 });
  expect(Buffer.isBuffer(frames[0].data)).toBe(true);
  // Each frame's own bytes: a VP8 key frame's start code sits right after its 3-byte tag.
  expect(frames[0].data.subarray(3, 6)).toEqual(Buffer.from([0x9d, 0x01, 0x2a]));
  const before = plis;
  session.requestKeyframe(pub.clientId);
  await waitFor('a PLI at the publisher', () => plis > before, 5000);
  await session.close();
  await session.close();
});

test('a join that cannot succeed rejects start() with the SignalingError, rebuilt on this thread', async () => {
  const room = await h.client.createRoom();
  const session = new ThreadSession({
    role: 'downstream',
    channelId: room.id,
    video: { codec_type: 'VP8' },
    audio: false,
    getTicket: () => Promise.reject(new Error('no ticket today')),
    loopbackOnly: true,
    rejoin: false,
  });
  closers.push(() => session.close());
  const error = await session.start().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(SignalingError);
  expect(error).toMatchObject({ reason: 'TICKET-FAILED' });
  expect(String((error as Error).message)).toContain('no ticket today');
});

test('a ticket failure keeps its kind across the thread: a deleted room is not joined again', async () => {
  const room = await h.client.createRoom();
  await h.client.deleteRoom(room.id);
  // Default rejoin policy: only the error's kind (an ApiError that is not retryable) stops it.
  const session = new ThreadSession({ role: 'downstream', channelId: room.id, video: { codec_type: 'VP8' }, audio: false, getTicket: h.client.ticketSource(room.id, 'down'), loopbackOnly: true });
  closers.push(() => session.close());
  const error = (await session.start().then(
    () => undefined,
    (err: unknown) => err,
  )) as SignalingError;
  expect(error).toMatchObject({ reason: 'TICKET-FAILED', rejoin: 'never' });
  expect(error.message).toMatch(/ApiError: createTicket failed.*404/);
});

/** A viewer of a room with a publisher in it, counting what it gets. */
async function watched(options: Partial<ThreadSessionOptions> = {}) {
  const room = await h.client.createRoom();
  const pub = await startPublisher(h.client, room.id);
  closers.push(() => pub.close());
  const session = new ThreadSession({ role: 'downstream', channelId: room.id, video: { codec_type: 'VP8' }, audio: false, getTicket: h.client.ticketSource(room.id, 'down'), loopbackOnly: true, ...options });
  closers.push(() => session.close());
  const seen = { frames: 0, rejoining: 0, closed: 0, removed: 0, joins: 0 };
  session.on('frame', () => seen.frames++);
  session.on('rejoining', () => seen.rejoining++);
  session.on('closed', () => seen.closed++);
  session.on('streamRemoved', () => seen.removed++);
  session.on('connected', ({ joins }) => (seen.joins = joins));
  await session.start();
  return { session, seen, pub };
}

test('sessions share a receive worker; the worker ends when its last session leaves', async () => {
  setReceiveWorkers(2);
  const a = await watched();
  const b = await watched();
  expect(a.session.workerThreadId).toBeDefined();
  expect(b.session.workerThreadId).toBe(a.session.workerThreadId);
  expect(receiveWorkers()).toEqual([expect.objectContaining({ threadId: a.session.workerThreadId, sessions: 2 })]);
  await waitFor('frames in both sessions', () => a.seen.frames >= 10 && b.seen.frames >= 10, 15_000);
  await a.session.close();
  // The other session goes on in the same worker.
  const before = b.seen.frames;
  await waitFor('more frames in the session left', () => b.seen.frames >= before + 5, 10_000);
  expect(receiveWorkers()).toEqual([expect.objectContaining({ sessions: 1 })]);
  await b.session.close();
  expect(receiveWorkers()).toEqual([]);
});

test('a worker that dies ends only its own sessions, which go on in another worker', async () => {
  // Two workers, a session each.
  setReceiveWorkers(2, 1);
  const a = await watched();
  const b = await watched();
  const lost = a.session.workerThreadId!;
  expect(b.session.workerThreadId).not.toBe(lost);
  await waitFor('frames in both sessions', () => a.seen.frames >= 5 && b.seen.frames >= 5, 15_000);
  expect(await receivePool().terminateWorker(lost)).toBe(true);
  // The session of the dead worker: its stream removed, a rejoin, a second join elsewhere, frames again.
  // Its stream is announced just after the join: wait for both.
  await waitFor('a second join of the moved session, with its stream', () => a.seen.joins === 2 && a.session.streams.size === 1, 20_000);
  expect(a.seen).toMatchObject({ rejoining: 1, removed: 1, closed: 0 });
  expect(a.session.workerThreadId).toBeDefined();
  expect(a.session.workerThreadId).not.toBe(lost);
  expect(a.session.streams.size).toBe(1);
  const after = a.seen.frames;
  await waitFor('frames again in the moved session', () => a.seen.frames >= after + 10, 15_000);
  // The other worker's session noticed nothing.
  expect(b.seen).toMatchObject({ rejoining: 0, removed: 0, closed: 0, joins: 1 });
  expect(receiveWorkers().map((w) => w.threadId)).not.toContain(lost);
});

test('the number of receive workers is checked: a bad setting is refused with an error naming it, before anything starts', () => {
  expect(() => setReceiveWorkers(0)).toThrow(InputError);
  expect(() => setReceiveWorkers(2.5)).toThrow(/receiveWorkers must be a whole number from 1 to 64/);
  expect(() => setReceiveWorkers(2, 0)).toThrow(InputError);
  const options = { role: 'downstream' as const, channelId: 'room', getTicket: () => Promise.reject(new Error('not used')) };
  const saved = process.env.VS_RECEIVE_WORKERS;
  try {
    process.env.VS_RECEIVE_WORKERS = 'many';
    expect(() => new ThreadSession(options)).toThrow(expect.objectContaining({ name: 'InputError', field: 'VS_RECEIVE_WORKERS' }));
    process.env.VS_RECEIVE_WORKERS = '3';
    expect(receivePool().size).toBe(3);
    // Set in code, the number wins over the environment.
    setReceiveWorkers(1);
    expect(receivePool().size).toBe(1);
  } finally {
    if (saved === undefined) delete process.env.VS_RECEIVE_WORKERS;
    else process.env.VS_RECEIVE_WORKERS = saved;
  }
  expect(receiveWorkers()).toEqual([]);
});
