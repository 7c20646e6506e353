import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Publisher } from '../../shared/publish';
import { receivePool } from '../../shared/signaling/receive-pool';
import { appliedSpeedups, weriftSpeedupsStatus } from '../../shared/signaling/werift-speedups';
import { FaceWatcher, receiveWorkers, setReceiveWorkers, setWeriftSpeedups, type StatusEvent, type WatchEvent } from '../../shared/watch';
import { encodeClip } from '../support/clip';
import { collect, during, publishClip, startWatchHarness, waitFor, type WatchHarness } from './support/room';

// Watchers in the process's shared receive workers: a worker that dies takes only its own watchers'
// sessions, which join again in another worker while the watcher goes on.

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'watch-workers-'));
  // Nobody in the picture: only the receive path matters here.
  clip = await encodeClip(dir, 'empty', [{ placements: [], seconds: 2, drift: 4 }]);
  collectionId = (await h.vision.createCollection()).collectionId;
}, 120_000);

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  setReceiveWorkers('auto');
});

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function watchedRoom(options: { thread?: 'main' | 'worker' } = {}): Promise<{ watcher: FaceWatcher; events: WatchEvent[]; publisher: Publisher }> {
  const room = await h.streaming.createRoom();
  const publisher = await publishClip(h, room.id, clip);
  closers.push(() => publisher.close());
  const watcher = new FaceWatcher({
    vision: h.vision,
    streaming: h.streaming,
    roomId: room.id,
    collectionId,
    loopbackOnly: true,
    session: { rejoin: { baseDelayMs: 50, maxDelayMs: 300 }, thread: options.thread },
  });
  closers.push(() => watcher.stop());
  const events = collect((n, fn) => watcher.on(n, fn));
  return { watcher, events, publisher };
}

const states = (events: WatchEvent[]) => events.filter((e): e is StatusEvent => e.event === 'status').map((e) => e.state);

test('a receive worker that dies: its watcher rejoins in another worker and goes on, the other worker\'s watcher notices nothing', async () => {
  // One session a worker, so the two watchers are in two workers.
  setReceiveWorkers(2, 1);
  const a = await watchedRoom();
  await a.watcher.start();
  const lost = receiveWorkers()[0]!.threadId;
  const b = await watchedRoom();
  await b.watcher.start();
  expect(receiveWorkers().map((w) => w.sessions)).toEqual([1, 1]);
  await waitFor('frames in both watchers', () => a.watcher.stats.frames.decoded > 10 && b.watcher.stats.frames.decoded > 10, 30_000);
  expect(await receivePool().terminateWorker(lost)).toBe(true);
  await waitFor('watcher A watching again', () => states(a.events).filter((s) => s === 'watching').length >= 2, 30_000);
  // A rejoin may take more than one attempt on a loaded machine: each says "rejoining" again.
  expect(states(a.events).filter((s, i, all) => s !== all[i - 1])).toEqual(['joining', 'watching', 'rejoining', 'watching']);
  const decoded = a.watcher.stats.frames.decoded;
  await waitFor('frames again in watcher A', () => a.watcher.stats.frames.decoded > decoded + 10, 30_000);
  await during(500);
  expect(states(b.events)).toEqual(['joining', 'watching']);
  expect([...a.events, ...b.events].filter((e) => e.event === 'error')).toEqual([]);
  expect(receiveWorkers().map((w) => w.threadId)).not.toContain(lost);
}, 120_000);

test("speed-ups already applied on this thread cannot be turned off: the process setting is refused with an error naming it, and stays on", async () => {
  // The publisher of this file runs on this thread: its connection applies them here.
  const w = await watchedRoom({ thread: 'main' });
  if (appliedSpeedups().length === 0) {
    // Turned off for the process (VS_WERIFT_SPEEDUPS=0): nothing to refuse, werift runs as published.
    setWeriftSpeedups(false);
    await w.watcher.start();
    expect(w.watcher.stats.werift).toMatchObject({ enabled: false, reason: 'turned off' });
    return;
  }
  expect(() => setWeriftSpeedups(false)).toThrow(expect.objectContaining({ name: 'InputError', field: 'weriftSpeedups' }));
  expect(weriftSpeedupsStatus()).toMatchObject({ enabled: true });
  await w.watcher.start();
  expect(w.watcher.stats.werift).toMatchObject({ enabled: true });
});
