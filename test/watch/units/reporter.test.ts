import { ClientError } from '../../../shared/errors';
import type { ErrorEvent, MatchEvent, PresentEntry, StatusEvent, WatchEvent } from '../../../shared/watch/events';
import { WatchReporter } from '../../../shared/watch/reporter';
import type { StreamWatch } from '../../../shared/watch/stream-watch';
import { Timers } from '../../../shared/watch/timers';
import type { WatchOptions } from '../../../shared/watch/options';
import { meteredStream, watchOptions } from './support';

// The reporter on a fake clock: status and error events, their counts, the repeat filter and the
// quota pause, without a room. Jest's fake timers drive Date, performance.now and setTimeout alike.

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const quota = () => new ClientError('limit_exceeded', 'quota spent', { status: 429, retryable: false });
const serverError = () => new ClientError('server_error', 'server error', { status: 500, retryable: true });

function reporter(options: Partial<WatchOptions> = {}, present: PresentEntry[] = []) {
  const events: WatchEvent[] = [];
  const streams = new Map<string, StreamWatch>([['cam', meteredStream()]]);
  const timers = new Timers();
  let decoder: string | undefined;
  const r = new WatchReporter(watchOptions(options), (e) => events.push(e), { streams: () => streams, decoder: () => decoder, present: () => present }, timers);
  const statuses = () => events.filter((e): e is StatusEvent => e.event === 'status');
  const errors = () => events.filter((e): e is ErrorEvent => e.event === 'error');
  return { r, events, streams, timers, statuses, errors, setDecoder: (d: string) => (decoder = d) };
}

function match(streamId = 'cam', latency = 120): MatchEvent {
  return { event: 'match', face_id: 'f', label: null, score: 0.9, location: { left: 0, top: 0, right: 1, bottom: 1 }, room: 'room-1', stream_id: streamId, track: 1, time: '', snapshot: Buffer.alloc(0), face: Buffer.alloc(0), quality: {} as MatchEvent['quality'], latency_ms: latency };
}

beforeEach(() => jest.useFakeTimers({ now: T0 }));
afterEach(() => jest.useRealTimers());

test('idle until the first status; each state change is one status with the counts, who is here and the time', () => {
  const here: PresentEntry[] = [{ visit_id: 'v', kind: 'person', face_id: 'f', label: null, stream_id: 'cam', since: 'a', last_seen: 'b' }];
  const { r, streams, statuses, setDecoder } = reporter({}, here);
  expect(r.state).toBe('idle');
  const c = streams.get('cam')!.meter.counters;
  c.frames.received = 40;
  c.samples.taken = 8;
  c.samples.analysed = 3;
  c.api.detect = 3;
  c.api.compare = 2;
  setDecoder('wasm');
  r.setState('watching', 'joined');
  expect(r.state).toBe('watching');
  expect(statuses()).toEqual([
    { event: 'status', state: 'watching', room: 'room-1', counts: { streams: 1, frames: 40, samples: 8, analysed: 3, matches: 0, unknowns: 0, api_calls: 5 }, decoder: 'wasm', present: here, detail: 'joined', time: new Date(T0).toISOString() },
  ]);
});

test('a status without a decoder or detail leaves them out; every status carries present, an empty list when nobody is here', () => {
  const { r, statuses } = reporter();
  r.setState('joining');
  r.status('watching', undefined, { missing_streams: ['x'] });
  for (const s of statuses()) {
    expect(Array.isArray(s.present)).toBe(true);
    expect(s).not.toHaveProperty('decoder');
    expect(s).not.toHaveProperty('detail');
  }
  expect(statuses()[1]).toMatchObject({ state: 'watching', missing_streams: ['x'] });
  // A status does not change the state: only setState does.
  expect(r.state).toBe('joining');
});

test('face events: the tallies, the stream\'s counters and both latency windows; arrived counts no match', () => {
  const { r, streams, statuses } = reporter();
  r.face(match('cam', 100));
  r.face(match('cam', 300));
  r.face({ ...match(), event: 'unknown', score: 0.2 } as unknown as MatchEvent);
  r.face({ ...match(), event: 'arrived', visit_id: 'v', kind: 'person' } as unknown as MatchEvent);
  // A stream already gone: the tallies still count.
  r.face(match('gone', 50));
  r.setState('watching');
  expect(statuses()[0].counts).toMatchObject({ matches: 3, unknowns: 1 });
  expect(streams.get('cam')!.meter.counters.events).toMatchObject({ match: 2, unknown: 1 });
  expect(streams.get('cam')!.meter.latency.summary().count).toBe(4);
  expect(r.latency.summary().count).toBe(5);
});

test('only the events asked for go out', () => {
  const { r, events } = reporter({ events: ['match', 'left'] });
  r.setState('watching');
  r.face(match());
  r.face({ ...match(), event: 'unknown', score: 0.2 } as unknown as MatchEvent);
  r.error(serverError(), 'api', 'cam');
  expect(events.map((e) => e.event)).toEqual(['match']);
  r.closing({ event: 'left' } as WatchEvent);
  r.closing({ event: 'status' } as WatchEvent);
  expect(events.map((e) => e.event)).toEqual(['match', 'left']);
});

test('an API fault is reported once per stream and code in 30 s, and counted on its stream each time it is reported', () => {
  const { r, errors, streams } = reporter();
  streams.set('other', meteredStream());
  r.apiFailed(serverError(), 'cam');
  r.apiFailed(serverError(), 'cam');
  r.apiFailed(serverError(), 'other');
  r.apiFailed(new Error('socket hang up'), 'cam');
  expect(errors().map((e) => [e.stream_id, e.error.code, e.source])).toEqual([
    ['cam', 'server_error', 'api'],
    ['other', 'server_error', 'api'],
    ['cam', 'api_failed', 'api'],
  ]);
  jest.advanceTimersByTime(29_999);
  r.apiFailed(serverError(), 'cam');
  expect(errors()).toHaveLength(3);
  jest.advanceTimersByTime(1);
  r.apiFailed(serverError(), 'cam');
  expect(errors()).toHaveLength(4);
  expect(streams.get('cam')!.meter.counters.events.error).toBe(3);
  // A failure the watcher survives changes no state: it goes on watching.
  expect(r.state).toBe('idle');
  r.setState('watching');
  r.error(new ClientError('visitor_store_failed', 'EACCES: permission denied'), 'visitors');
  expect(r.state).toBe('watching');
  expect(errors().at(-1)).toMatchObject({ source: 'visitors', error: { code: 'visitor_store_failed' } });
  expect(errors().at(-1)).not.toHaveProperty('stream_id');
});

test('a spent quota: one error, the paused status with its length, no analysis while paused, and watching again by itself', () => {
  const { r, errors, statuses } = reporter({ quotaPauseSeconds: 1.5 });
  r.setState('watching');
  r.apiFailed(quota(), 'cam');
  expect(errors()).toEqual([expect.objectContaining({ source: 'api', stream_id: 'cam', error: expect.objectContaining({ status: 429, retryable: false }) })]);
  expect(r.state).toBe('paused');
  expect(statuses().at(-1)).toMatchObject({ state: 'paused', detail: 'quota exhausted: analysis resumes in 2 s' });
  expect(r.paused()).toBe(true);
  // A second spent quota while paused lengthens the pause and says nothing more.
  r.apiFailed(quota(), 'cam');
  expect(errors()).toHaveLength(1);
  jest.advanceTimersByTime(1499);
  expect(r.state).toBe('paused');
  jest.advanceTimersByTime(1);
  expect(statuses().at(-1)).toMatchObject({ state: 'watching', detail: 'quota pause over' });
  // The second trip (at 0 s, twice 1.5 s long) holds analysis to 3 s although the state says watching.
  expect(r.paused()).toBe(true);
  jest.advanceTimersByTime(1499);
  expect(r.paused()).toBe(true);
  jest.advanceTimersByTime(1);
  expect(r.paused()).toBe(false);
  expect(statuses().map((s) => s.state)).toEqual(['watching', 'paused', 'watching']);
});

test('the pause doubles while the quota stays spent, up to 16 times the first, and a successful call starts it over', () => {
  const { r } = reporter({ quotaPauseSeconds: 1 });
  const lengths: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    r.apiFailed(quota(), 'cam');
    while (r.paused()) jest.advanceTimersByTime(100);
    lengths.push(performance.now() - start);
  }
  expect(lengths).toEqual([1000, 2000, 4000, 8000, 16_000, 16_000, 16_000]);
  r.apiSucceeded();
  r.apiFailed(quota(), 'cam');
  jest.advanceTimersByTime(1000);
  expect(r.paused()).toBe(false);
});

test('a pause that ends after a state change (a rejoin) does not set the state back to watching', () => {
  const { r, statuses } = reporter({ quotaPauseSeconds: 1 });
  r.setState('watching');
  r.apiFailed(quota(), 'cam');
  r.setState('rejoining', 'socket closed');
  jest.advanceTimersByTime(5000);
  expect(statuses().map((s) => s.state)).toEqual(['watching', 'paused', 'rejoining']);
});

test('once stopping, only status and the closing events go out; stopped says why, only for a watcher that had started', () => {
  const { r, events } = reporter();
  r.stopped('start_failed');
  expect(events).toEqual([]);
  expect(r.state).toBe('stopped');

  const started = reporter();
  started.r.setState('watching');
  started.r.stopping();
  started.r.face(match());
  started.r.send({ event: 'left' } as WatchEvent);
  started.r.error(serverError(), 'session');
  started.r.closing({ event: 'left', visit_id: 'v' } as WatchEvent);
  const lost = new ClientError('room_closed', 'room gone');
  started.r.stopped('session_lost', lost);
  expect(started.events.map((e) => e.event)).toEqual(['status', 'left', 'status']);
  expect(started.events.at(-1)).toMatchObject({ state: 'stopped', reason: 'session_lost', error: lost, detail: 'room gone' });
  expect(started.statuses().map((s) => s.state)).toEqual(['watching', 'stopped']);
});

test('a pause timer cancelled by the watcher\'s stop never fires', () => {
  const { r, timers, statuses } = reporter({ quotaPauseSeconds: 1 });
  r.setState('watching');
  r.apiFailed(quota(), 'cam');
  timers.close();
  jest.advanceTimersByTime(10_000);
  expect(statuses().map((s) => s.state)).toEqual(['watching', 'paused']);
  expect(jest.getTimerCount()).toBe(0);
});
