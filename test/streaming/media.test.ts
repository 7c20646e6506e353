import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { VideoCodec } from '../../shared/frames';
import { Publisher, openVideoSource } from '../../shared/publish';
import { decodeFrames, encodeTestPattern } from './support/ffmpeg';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { FAST_REJOIN, Viewer, startPublisher } from './support/peers';

let h: StreamingHarness;
let dir: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  h = await startHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'streaming-media-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await h.sandbox.reset();
});
afterAll(async () => {
  await h.stop();
  await rm(dir, { recursive: true, force: true });
});

describe.each(['VP8', 'H264'] as VideoCodec[])('%s publisher -> sandbox SFU -> viewer', (codec) => {
  test('the viewer gets frames a decoder accepts, starting with a key frame', async () => {
    const room = await h.client.createRoom();
    const pub = await startPublisher(h.client, room.id, { codec });
    closers.push(() => pub.close());
    const viewer = new Viewer(h.client, room.id, codec);
    closers.push(() => viewer.close());
    await viewer.start();
    await waitFor('45 frames', () => viewer.frames.length >= 45, 15_000);
    const frames = viewer.frames.slice(0, 45);
    expect(frames[0].isKeyframe).toBe(true);
    expect(frames[0]).toMatchObject({ codec, width: 320, height: 240 });
    expect(frames.filter((f) => f.isKeyframe).length).toBeGreaterThanOrEqual(2); // GOP of 15
    const decoded = await decodeFrames(frames);
    expect(decoded).toEqual({ decoded: 45, errors: '' });
  });
});

test('a viewer that joins late starts with a key frame; the room shows as on air', async () => {
  const room = await h.client.createRoom();
  const pub = await startPublisher(h.client, room.id, { gop: 30 });
  closers.push(() => pub.close());
  let pliAtPublisher = 0;
  pub.on('keyframeRequest', () => pliAtPublisher++);
  await waitFor('publisher sending', () => pub.stats.frames > 40, 10_000);
  expect((await h.client.listRooms('onair')).map((r) => r.id)).toEqual([room.id]);
  const late = new Viewer(h.client, room.id, 'VP8');
  closers.push(() => late.close());
  await late.start();
  await waitFor('10 frames', () => late.frames.length >= 10, 10_000);
  expect(late.frames[0].isKeyframe).toBe(true);
  expect(await decodeFrames(late.frames.slice(0, 10))).toEqual({ decoded: 10, errors: '' });
  // The viewer asked for a key frame on start, and the SFU passed the request on to the publisher.
  expect(late.session.stats.keyframeRequests).toBeGreaterThanOrEqual(1);
  await waitFor('PLI at the publisher', () => pliAtPublisher > 0, 5000);
  const listed = await h.client.getRoom(room.id);
  expect(listed).toMatchObject({ up_count: 1, down_count: 1 });
});

test('without re-encoding: an IVF file and a raw H264 file are published as they are', async () => {
  const ivf = path.join(dir, 'clip.ivf');
  const h264 = path.join(dir, 'clip.h264');
  await writeFile(ivf, await encodeTestPattern({ codec: 'VP8', frames: 60, gop: 10 }));
  await writeFile(h264, await encodeTestPattern({ codec: 'H264', frames: 60, gop: 10 }));
  for (const [file, codec] of [
    [ivf, 'VP8'],
    [h264, 'H264'],
  ] as const) {
    const room = await h.client.createRoom();
    const viewer = new Viewer(h.client, room.id, codec);
    closers.push(() => viewer.close());
    const source = await openVideoSource({ file, loop: true, ffmpegPath: '/nonexistent/ffmpeg' });
    expect(source.constructor.name).toMatch(/FileSource$/);
    expect(source.codec).toBe(codec);
    // Closers run last first: the publisher closes, then the source it was given.
    closers.push(() => source.close());
    const pub = new Publisher({ source, getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true, rejoin: FAST_REJOIN });
    closers.push(() => pub.close());
    await pub.start();
    await viewer.start();
    await waitFor(`${codec} frames`, () => viewer.frames.length >= 30, 15_000);
    expect(viewer.frames[0].isKeyframe).toBe(true);
    expect(await decodeFrames(viewer.frames.slice(0, 30))).toEqual({ decoded: 30, errors: '' });
  }
});

test('a viewer that joins before the publisher receives once it starts', async () => {
  const room = await h.client.createRoom();
  const viewer = new Viewer(h.client, room.id, 'VP8');
  closers.push(() => viewer.close());
  await viewer.start();
  const pub = await startPublisher(h.client, room.id);
  closers.push(() => pub.close());
  await waitFor('frames', () => viewer.frames.length >= 20, 15_000);
  expect(viewer.frames[0].isKeyframe).toBe(true);
  expect(await decodeFrames(viewer.frames.slice(0, 20))).toEqual({ decoded: 20, errors: '' });
});

test('a second publisher arrives through an update renegotiation; frames tell the streams apart', async () => {
  const room = await h.client.createRoom();
  const first = await startPublisher(h.client, room.id);
  closers.push(() => first.close());
  const viewer = new Viewer(h.client, room.id, 'VP8');
  closers.push(() => viewer.close());
  await viewer.start();
  await waitFor('first stream', () => viewer.frames.length >= 5, 10_000);
  const second = await startPublisher(h.client, room.id, { width: 160, height: 120 });
  closers.push(() => second.close());
  const streams = (): Map<string | undefined, number> => {
    const seen = new Map<string | undefined, number>();
    for (const f of viewer.frames) seen.set(f.trackId, f.width ?? 0);
    return seen;
  };
  await waitFor('two streams', () => streams().size >= 2, 15_000);
  expect([...streams().values()].sort()).toEqual([160, 320]);
  expect(viewer.session.stats.renegotiations).toBeGreaterThanOrEqual(1);
  for (const id of streams().keys()) {
    const own = viewer.frames.filter((f) => f.trackId === id).slice(0, 10);
    expect(own[0].isKeyframe).toBe(true);
    expect((await decodeFrames(own)).errors).toBe('');
  }
});

test('a file publisher without loop ends by itself and leaves the room', async () => {
  const ivf = path.join(dir, 'short.ivf');
  await writeFile(ivf, await encodeTestPattern({ codec: 'VP8', frames: 15, gop: 5 }));
  const room = await h.client.createRoom();
  const source = await openVideoSource({ file: ivf });
  const pub = new Publisher({ source, getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true });
  const ended = new Promise<void>((r) => pub.once('sourceEnded', () => r()));
  const closed = new Promise<{ error?: Error }>((r) => pub.once('closed', r));
  await pub.start();
  await ended;
  expect(await closed).toEqual({ error: undefined });
  expect(pub.stats.frames).toBe(15);
  await pub.close();
  await source.close();
  let room2 = await h.client.getRoom(room.id);
  for (let i = 0; i < 50 && room2.up_count !== 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    room2 = await h.client.getRoom(room.id);
  }
  expect(room2.up_count).toBe(0);
});
