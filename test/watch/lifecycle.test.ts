import { acquireConnection } from '../../shared/connection';
import { FaceWatcher, type StatusEvent, type WatchEvent } from '../../shared/watch';
import { resolveWatchOptions } from '../../shared/watch/options';
import { collect, startWatchHarness, waitFor, type WatchHarness } from './support/room';

// How a watcher ends (the `stopped` status says why), the connection lease hosts hold for a
// credential, and the loopback mode the watcher takes from the streaming address.

let h: WatchHarness;
let collectionId: string;

beforeAll(async () => {
  h = await startWatchHarness();
  collectionId = (await h.vision.createCollection()).collectionId;
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

const stopped = (events: WatchEvent[]) => events.filter((e): e is StatusEvent => e.event === 'status' && e.state === 'stopped');

describe('the stopped status says why', () => {
  test('a start that fails: start_failed, with the error; stop() afterwards adds nothing', async () => {
    const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: 'no-such-room', collectionId });
    const events = collect((n, fn) => watcher.on(n, fn));
    await expect(watcher.start()).rejects.toMatchObject({ status: 404 });
    expect(stopped(events)).toEqual([expect.objectContaining({ reason: 'start_failed', error: expect.objectContaining({ status: 404 }) })]);
    await watcher.stop();
    expect(stopped(events)).toHaveLength(1);
    expect(watcher.state).toBe('stopped');
  });

  test('stop() asked for: requested, without an error', async () => {
    const room = await h.streaming.createRoom();
    const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId });
    const events = collect((n, fn) => watcher.on(n, fn));
    await watcher.start();
    expect(watcher.state).toBe('watching');
    await watcher.stop();
    const [last] = stopped(events);
    expect(last.reason).toBe('requested');
    expect(last).not.toHaveProperty('error');
    await h.streaming.deleteRoom(room.id);
  });

  test('a room that goes away for good: session_lost, after the error event', async () => {
    const room = await h.streaming.createRoom();
    const watcher = new FaceWatcher({
      vision: h.vision,
      streaming: h.streaming,
      roomId: room.id,
      collectionId,
      session: { rejoin: { baseDelayMs: 50, maxDelayMs: 200, maxAttempts: 2 } },
    });
    const events = collect((n, fn) => watcher.on(n, fn));
    await watcher.start();
    await h.streaming.deleteRoom(room.id);
    await waitFor('the watcher to stop', () => stopped(events).length > 0, 60_000);
    const [last] = stopped(events);
    expect(last.reason).toBe('session_lost');
    expect(last.error).toBeDefined();
    const lastError = events.findLast((e) => e.event === 'error');
    expect(events.indexOf(lastError!)).toBeLessThan(events.indexOf(last));
    await watcher.stop();
    expect(stopped(events)).toHaveLength(1);
  }, 90_000);
});

describe('the connection lease', () => {
  const settings = () => ({ authUrl: h.sandbox.url, visionUrl: h.sandbox.url, sfuUrl: h.sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });

  test('holders of one credential share one pool, one token and the clients; the last release closes them', async () => {
    await h.sandbox.expireTokens();
    const issued = h.sandbox.stats().tokensIssued;
    const a = acquireConnection(settings());
    const b = acquireConnection(settings());
    expect(a.vision()).toBe(b.vision());
    expect(a.streaming()).toBe(b.streaming());
    expect(a.dispatcher).toBe(b.dispatcher);
    await Promise.all([a.vision().listCollections(), b.streaming().listRooms()]);
    expect(h.sandbox.stats().tokensIssued - issued).toBe(1);

    await a.release();
    await a.release();
    expect(b.open).toBe(true);
    expect(a.open).toBe(false);
    expect(() => a.vision()).toThrow(expect.objectContaining({ field: 'connection' }));
    await b.streaming().listRooms();
    const vision = b.vision();
    await b.release();
    await expect(vision.listCollections()).rejects.toMatchObject({ code: 'closed' });

    // A later holder gets a new connection.
    const c = acquireConnection(settings());
    expect(c.vision()).not.toBe(vision);
    await c.vision().listCollections();
    await c.release();
  });

  test('another secret is another connection; a missing one is an InputError naming it and the holder', async () => {
    const a = acquireConnection(settings());
    const b = acquireConnection({ ...settings(), clientSecret: 'another-secret' });
    expect(a.vision()).not.toBe(b.vision());
    await expect(b.vision().listCollections()).rejects.toMatchObject({ status: 401 });
    const none = acquireConnection({ ...settings(), clientSecret: undefined, owner: 'the test config' });
    expect(() => none.vision()).toThrow(expect.objectContaining({ name: 'InputError', field: 'clientSecret', message: expect.stringMatching(/the test config has no client secret/) }));
    await Promise.all([a.release(), b.release(), none.release()]);
  });
});

test('loopback mode comes from the streaming address, unless set', () => {
  const base = { vision: h.vision, roomId: 'r', collectionId: 'c' };
  const loopback = (sfuUrl: string, loopbackOnly?: boolean) =>
    resolveWatchOptions({ ...base, streaming: { sfuUrl, authUrl: sfuUrl, clientId: 'x', clientSecret: 'y' }, loopbackOnly }).loopbackOnly;
  expect(loopback('http://127.0.0.1:8787')).toBe(true);
  expect(loopback('http://localhost:8787')).toBe(true);
  expect(loopback('http://[::1]:8787')).toBe(true);
  expect(loopback('https://sfu.api.ricoh')).toBe(false);
  expect(loopback('http://127.0.0.1:8787', false)).toBe(false);
  expect(loopback('https://sfu.api.ricoh', true)).toBe(true);
  // A client handed in tells by its own address.
  expect(resolveWatchOptions({ ...base, streaming: h.streaming }).loopbackOnly).toBe(true);
});
