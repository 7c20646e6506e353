import { EventEmitter } from 'node:events';
import type { ClientError } from '../../../shared/errors';
import type { EncodedFrame } from '../../../shared/frames/types';
import type { SessionEvents } from '../../../shared/signaling/session';
import type { ThreadSessionOptions } from '../../../shared/signaling/session-thread';
import type { StreamingClient } from '../../../shared/streaming';
import type { AnalysisContext } from '../../../shared/watch/analyse';
import type { ErrorSource } from '../../../shared/watch/events';
import type { WatchOptions } from '../../../shared/watch/options';
import { RoomStreams, type RoomStreamsHooks } from '../../../shared/watch/room-streams';
import { StreamWatch } from '../../../shared/watch/stream-watch';
import { Timers } from '../../../shared/watch/timers';
import { SignalingError } from '../../../shared/signaling/close-reasons';
import { watchOptions } from './support';

// The room's streams over a fake viewing session: the session's events are emitted by hand, so
// streams joining, leaving, coming back within the grace, named streams that never come and the
// rejoin bookkeeping are checked without WebRTC. No frame here is a key frame: no decoder starts.

/** The viewing session as the room's streams use it. */
class FakeSession extends EventEmitter<SessionEvents> {
  readonly streams = new Map<string, unknown>();
  readonly keyframes: (string | undefined)[] = [];
  started = 0;
  closed = 0;
  async start(): Promise<void> {
    this.started++;
  }
  async close(): Promise<void> {
    this.closed++;
  }
  requestKeyframe(streamId?: string): void {
    this.keyframes.push(streamId);
  }
}

function frame(streamId: string | undefined, trackId?: string): EncodedFrame {
  return { codec: 'VP8', data: Buffer.from([1, 2, 3]), isKeyframe: false, timestamp: 90_000, streamId, trackId };
}

async function room(options: Partial<WatchOptions> = {}) {
  const o = watchOptions(options);
  const session = new FakeSession();
  const opened: ThreadSessionOptions[] = [];
  const calls: { failed: [ClientError, string, ErrorSource][]; rejoining: string[]; rejoined: number[]; lost: ClientError[] } = { failed: [], rejoining: [], rejoined: [], lost: [] };
  const hooks: RoomStreamsHooks = {
    streamFailed: (error, streamId, source) => calls.failed.push([error, streamId, source]),
    rejoining: (detail) => calls.rejoining.push(detail),
    rejoined: (joins) => calls.rejoined.push(joins),
    lost: (error) => calls.lost.push(error),
  };
  const streaming = { ticketSource: () => async () => ({}) } as unknown as StreamingClient;
  const timers = new Timers();
  const r = new RoomStreams(o, streaming, { o } as AnalysisContext, hooks, timers, (settings) => {
    opened.push(settings);
    return session;
  });
  await r.join();
  return { r, session, opened, calls, timers };
}

/** Lets the stream-added handler (async: a codec check may run) finish. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Resolves once `done` holds (a codec check looks for an ffmpeg binary, which takes a few ticks). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

test('join opens one viewing session for the room as a downstream viewer, with the session tweaks, and starts it', async () => {
  const { session, opened } = await room({ codec: 'VP9', session: { rejoin: { baseDelayMs: 50 }, thread: 'main' } });
  expect(session.started).toBe(1);
  expect(opened).toHaveLength(1);
  expect(opened[0]).toMatchObject({ role: 'downstream', channelId: 'room-1', video: { codec_type: 'VP9' }, audio: false, loopbackOnly: true, rejoin: { baseDelayMs: 50 } });
  expect(opened[0]).not.toHaveProperty('thread');
  expect(typeof opened[0].getTicket).toBe('function');
});

test('announced streams are watched, with their codec; every stream is its own', async () => {
  const { r, session } = await room();
  session.emit('streamAdded', { streamId: 'front', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  session.emit('streamAdded', { streamId: 'garage' } as SessionEvents['streamAdded'][0]);
  await settle();
  expect([...r.streams.keys()]).toEqual(['front', 'garage']);
  session.emit('frame', frame('front'));
  session.emit('frame', frame('front'));
  session.emit('frame', frame('garage'));
  const stats = r.stats();
  expect(Object.keys(stats)).toEqual(['front', 'garage']);
  expect(stats.front).toMatchObject({ codec: 'VP8', frames: { received: 2, dropped: 2, decoded: 0 } });
  expect(stats.garage).toMatchObject({ codec: 'VP8', frames: { received: 1 } });
  // A second announcement of a stream under way changes nothing.
  const front = r.streams.get('front');
  session.emit('streamAdded', { streamId: 'front', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  await settle();
  expect(r.streams.get('front')).toBe(front);
});

test('a frame of a stream not announced yet starts it (by stream id, else track id, else "default")', async () => {
  const { r, session } = await room();
  session.emit('frame', frame('cam'));
  session.emit('frame', frame(undefined, 'track-7'));
  session.emit('frame', frame(undefined));
  expect([...r.streams.keys()]).toEqual(['cam', 'track-7', 'default']);
  expect(r.stats().cam.frames.received).toBe(1);
});

test('streams: only the named streams are watched; those never seen are missing until they come', async () => {
  const { r, session } = await room({ streams: ['garage', 'no-such-camera'] });
  expect(r.missing()).toEqual(['garage', 'no-such-camera']);
  session.emit('streamAdded', { streamId: 'front', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  session.emit('frame', frame('front'));
  session.emit('streamAdded', { streamId: 'garage', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  await settle();
  expect([...r.streams.keys()]).toEqual(['garage']);
  expect(Object.keys(r.stats())).toEqual(['garage']);
  expect(r.missing()).toEqual(['no-such-camera']);
  // Without the option nothing is missing.
  expect((await room()).r.missing()).toEqual([]);
});

test('a stream that leaves keeps its tracks for 60 s: back within them it is the same stream; after them it is closed and gone', async () => {
  jest.useFakeTimers();
  const restart = jest.spyOn(StreamWatch.prototype, 'restart');
  const close = jest.spyOn(StreamWatch.prototype, 'close');
  const { r, session } = await room();
  session.emit('streamAdded', { streamId: 'cam', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  await Promise.resolve();
  const cam = r.streams.get('cam')!;
  session.emit('streamRemoved', { streamId: 'cam' });
  // Its decoder starts over at the next key frame; the stream (its tracks and counters) stays.
  expect(restart).toHaveBeenCalledTimes(1);
  jest.advanceTimersByTime(59_999);
  session.emit('streamAdded', { streamId: 'cam', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  await Promise.resolve();
  jest.advanceTimersByTime(10_000);
  expect(r.streams.get('cam')).toBe(cam);
  expect(close).not.toHaveBeenCalled();

  session.emit('streamRemoved', { streamId: 'cam' });
  jest.advanceTimersByTime(59_999);
  expect(r.streams.has('cam')).toBe(true);
  jest.advanceTimersByTime(1);
  expect(r.streams.has('cam')).toBe(false);
  expect(close).toHaveBeenCalledTimes(1);
  // A stream removed that was never watched (not named) leaves nothing to wait for.
  session.emit('streamRemoved', { streamId: 'never-seen' });
  expect(jest.getTimerCount()).toBe(0);
});

test('at the end of the grace a stream the session lists again (no new announcement) stays', async () => {
  jest.useFakeTimers();
  const { r, session } = await room();
  session.emit('streamAdded', { streamId: 'cam', codec: 'VP8' } as SessionEvents['streamAdded'][0]);
  await Promise.resolve();
  session.emit('streamRemoved', { streamId: 'cam' });
  session.streams.set('cam', {});
  jest.advanceTimersByTime(60_000);
  expect(r.streams.has('cam')).toBe(true);
});

test('rejoin bookkeeping: every stream starts over while the session rejoins; a join after the first is a rejoin; a session that gives up is lost', async () => {
  const restart = jest.spyOn(StreamWatch.prototype, 'restart');
  const { session, calls } = await room();
  session.emit('frame', frame('a'));
  session.emit('frame', frame('b'));
  session.emit('connected', { joins: 1 });
  expect(calls.rejoined).toEqual([]);
  const error = SignalingError.from({ reason: 'UNKNOWN-REASON', detail: 'the socket closed' });
  session.emit('rejoining', { attempt: 2, delayMs: 300, error });
  expect(restart).toHaveBeenCalledTimes(2);
  expect(calls.rejoining).toEqual([`${error.reason}; attempt 2 in 300 ms`]);
  session.emit('connected', { joins: 2 });
  expect(calls.rejoined).toEqual([2]);
  // Closed without an error is the watcher's own stop: nothing is lost.
  session.emit('closed', {});
  expect(calls.lost).toEqual([]);
  session.emit('closed', { error });
  expect(calls.lost).toEqual([error]);
});

test('a stream in another codec: watched when a decoder handles it; otherwise one decoder error and its frames are ignored', async () => {
  const wasm = await room({ decoder: 'wasm' });
  wasm.session.emit('streamAdded', { streamId: 'vp9', codec: 'VP9' } as SessionEvents['streamAdded'][0]);
  await settle();
  expect(wasm.r.stats().vp9).toMatchObject({ codec: 'VP9' });
  expect(wasm.calls.failed).toEqual([]);

  const none = await room({ decoder: 'ffmpeg', ffmpegPath: '/nonexistent/ffmpeg' });
  none.session.emit('streamAdded', { streamId: 'h264', codec: 'H264' } as SessionEvents['streamAdded'][0]);
  // Frames that come while the codec is checked wait out the check (and are ignored after it).
  none.session.emit('frame', { ...frame('h264'), codec: 'H264' });
  await until(() => none.calls.failed.length > 0);
  none.session.emit('frame', { ...frame('h264'), codec: 'H264' });
  expect(none.r.streams.has('h264')).toBe(false);
  expect(none.calls.failed).toEqual([[expect.objectContaining({ message: expect.stringMatching(/H264/) }), 'h264', 'decoder']]);
});

test('close cancels the grace timers, leaves the room and closes every stream; twice is fine', async () => {
  jest.useFakeTimers();
  const close = jest.spyOn(StreamWatch.prototype, 'close');
  const { r, session } = await room();
  session.emit('frame', frame('a'));
  session.emit('frame', frame('b'));
  session.emit('streamRemoved', { streamId: 'a' });
  expect(jest.getTimerCount()).toBe(1);
  await r.close();
  expect(jest.getTimerCount()).toBe(0);
  expect(session.closed).toBe(1);
  expect(close).toHaveBeenCalledTimes(2);
  await r.close();
});
