import { receiveWorkers, setReceiveWorkers } from '../../shared/signaling/receive-pool';
import { ThreadSession } from '../../shared/signaling/session-thread';
import { appliedSpeedups, setWeriftSpeedups, weriftSpeedupsStatus } from '../../shared/signaling/werift-speedups';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { startPublisher } from './support/peers';

// The werift speed-ups are a process setting: the receive workers follow it, none is per session.
// This file turns them off before the first connection of its thread (setting them off later would
// be refused once a connection here applied them).

let h: StreamingHarness;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  setWeriftSpeedups(false);
  h = await startHarness();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  setReceiveWorkers('auto');
});
afterAll(async () => {
  await h.stop();
});

/** A viewer in a receive worker of a room with a publisher in it, counting its frames. */
async function watched(): Promise<{ session: ThreadSession; frames: () => number }> {
  const room = await h.client.createRoom();
  const pub = await startPublisher(h.client, room.id);
  closers.push(() => pub.close());
  const session = new ThreadSession({ role: 'downstream', channelId: room.id, video: { codec_type: 'VP8' }, audio: false, getTicket: h.client.ticketSource(room.id, 'down'), loopbackOnly: true });
  closers.push(() => session.close());
  let frames = 0;
  session.on('frame', () => frames++);
  await session.start();
  return { session, frames: () => frames };
}

test('turned off for the process: this thread and every new receive worker run werift as published', async () => {
  setReceiveWorkers(1);
  const off = await watched();
  await waitFor('frames on werift as published', () => off.frames() >= 10, 15_000);
  expect(weriftSpeedupsStatus()).toMatchObject({ enabled: false, reason: 'turned off' });
  expect(appliedSpeedups()).toEqual([]);
  expect(off.session.weriftStatus).toMatchObject({ enabled: false, reason: 'turned off' });
  const worker = receiveWorkers().find((w) => w.threadId === off.session.workerThreadId);
  expect(worker).toMatchObject({ weriftSpeedups: false, applied: [] });
});

test('turned on again: new sessions go to a worker of the new setting, a running one keeps its own', async () => {
  setReceiveWorkers(1);
  const off = await watched();
  // Last in the file: this thread's next connection applies them, and they cannot be turned off after.
  setWeriftSpeedups(true);
  const on = await watched();
  await waitFor('frames in both sessions', () => off.frames() >= 10 && on.frames() >= 10, 15_000);
  expect(on.session.workerThreadId).not.toBe(off.session.workerThreadId);
  const worker = (s: ThreadSession) => receiveWorkers().find((w) => w.threadId === s.workerThreadId);
  expect(worker(off.session)).toMatchObject({ weriftSpeedups: false, applied: [] });
  expect(worker(on.session)).toMatchObject({ weriftSpeedups: true });
  if (weriftSpeedupsStatus().enabled) {
    expect(worker(on.session)?.applied).toEqual(expect.arrayContaining(['srtpKeyObjects', 'fastGetBit', 'plainRtpObjects', 'leanEvents', 'firstCodecMemo', 'nackLoopEnds', 'quietPerPacket']));
  }
});
