import type { Picture } from '../../../shared/decode';
import { PeopleIndex } from '../../../shared/people/people-index';
import { ClientError } from '../../../shared/errors';
import type { VisionClient } from '../../../shared/vision';
import type { CollectionMatch } from '../../../shared/vision/types';
import { analyseSample, type AnalysisContext, type StreamState } from '../../../shared/watch/analyse';
import { CallBudget } from '../../../shared/watch/budget';
import { ChangeGate } from '../../../shared/watch/change-gate';
import { Cooldown } from '../../../shared/watch/cooldown';
import { DEFAULT_CROP_RULE } from '../../../shared/watch/crop-geometry';
import type { ErrorEvent, StatusEvent, WatchEvent } from '../../../shared/watch/events';
import type { Box } from '../../../shared/watch/geometry';
import type { WatchOptions } from '../../../shared/watch/options';
import { isMuted } from '../../../shared/watch/people-view';
import { Presence } from '../../../shared/watch/presence';
import { WatchReporter } from '../../../shared/watch/reporter';
import { Timers } from '../../../shared/watch/timers';
import { StreamMeter } from '../../../shared/watch/stats';
import type { StreamWatch } from '../../../shared/watch/stream-watch';
import { Tracker } from '../../../shared/watch/tracker';
import { leftEvent } from '../../../shared/watch/visit-events';
import { VisitorError } from '../../../shared/watch/visitor-errors';
import { MemoryVisitorStore, VisitorBook, type VisitorStore } from '../../../shared/watch/visitors';
import { watchOptions } from './support';
import { arrivals, departures, expectPairs, matches, unknowns } from '../support/visits';

// Who arrives, who is matched, who is a stranger and who leaves, decided by the analysis on plain
// inputs: the vision service is a fake that finds the faces a test puts in each sample and answers
// each compare as the test says; pictures are noise (so the change gate lets every sample through);
// jest's fake clock runs Date, performance.now and the samples' rhythm. The watcher's glue around it
// (the 1 s check for visits over, the visits a stop closes) is done here as the watcher does it.

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const SAMPLE_MS = 500;
const AT: Box = { left: 245, top: 145, right: 395, bottom: 295 };
const ELSEWHERE: Box = { left: 60, top: 100, right: 200, bottom: 240 };
const isJpeg = (b: Buffer | undefined) => b !== undefined && b[0] === 0xff && b[1] === 0xd8;
const noFace = () => Object.assign(new Error('no face found in the image'), { status: 400, code: 'face_not_found' });
const A = (score = 0.93): CollectionMatch[] => [{ faceId: 'face-a', score }];
const STRANGER: CollectionMatch[] = [{ faceId: 'face-a', score: 0.21 }];

/** A compare's answer: the collection's faces, most similar first, or the error the service gave. */
type Answer = CollectionMatch[] | Error;

/**
 * The two pictures samples alternate: 640x480, reddish (a face in them is not greyscale), with faint
 * stripes, one twice as bright as the other so that the change gate lets every sample through. Plain
 * on purpose and made once: what is in them does not matter to the fake service.
 */
const PICTURES = [0, 100].map((level): Picture => {
  const data = new Uint8Array(640 * 480 * 3);
  const tint = [90, 30, 50];
  for (let i = 0; i < data.length; i++) data[i] = level + tint[i % 3] + (Math.floor(i / 1920) % 8);
  return { width: 640, height: 480, format: 'rgb', data, timestamp: 0 };
});

/** The `n`th picture of a stream (the analysis reads pictures, never writes them). */
const picture = (n: number): Picture => PICTURES[n % 2];

function scene(options: Partial<WatchOptions> = {}, visitorStore?: VisitorStore) {
  const o = watchOptions({ cooldownSeconds: 600, leftAfterSeconds: 2, budgetPerSecond: 50, ...options });
  const events: WatchEvent[] = [];
  const failures: unknown[] = [];
  const visitorErrors: VisitorError[] = [];
  const calls = { detect: 0, compare: 0, addFace: 0, removed: [] as string[] };
  let faces: Box[] = [];
  let answer: (call: number) => Answer = () => STRANGER;
  let detectFault: Error | undefined;
  const vision = {
    detectFaces: async () => {
      calls.detect++;
      if (detectFault) throw detectFault;
      return faces.map((location) => ({ direction: 'front', location }));
    },
    compareWithCollection: async () => {
      const a = answer(++calls.compare);
      if (a instanceof Error) throw a;
      return { source: { location: AT }, target: { collectionId: o.collectionId, faces: a } };
    },
    addFace: async () => ({ faceId: `visitor-${++calls.addFace}` }),
    removeFace: async (_c: string, id: string) => void calls.removed.push(id),
    listFaces: async () => [],
  } as unknown as VisionClient;
  const visitors = o.rememberVisitors ? new VisitorBook({ collectionId: o.collectionId, retentionMs: o.visitorRetentionMs, max: o.maxVisitors, labels: o.labels }, vision, visitorStore ?? new MemoryVisitorStore(), (e) => visitorErrors.push(e)) : undefined;
  const presence = new Presence(o.leftAfterMs);
  // The watcher's reporter answers these; a test may put one in.
  const hooks: Pick<AnalysisContext, 'paused' | 'apiFailed' | 'apiSucceeded'> = { paused: () => false, apiFailed: (err) => void failures.push(err), apiSucceeded: () => undefined };
  const ctx: AnalysisContext = {
    o,
    vision,
    budget: new CallBudget(o.budgetPerSecond),
    cooldown: new Cooldown(o.cooldownMs),
    cropRule: { ...DEFAULT_CROP_RULE, minFaceSize: o.minFaceSize },
    paused: () => hooks.paused(),
    apiFailed: (err, streamId) => hooks.apiFailed(err, streamId),
    apiSucceeded: () => hooks.apiSucceeded(),
    emit: (e) => events.push(e),
    ended: (visit) => events.push(leftEvent(visit, 'recognised', o.roomId)),
    muted: (faceId, person) => isMuted(o, faceId, person),
    people: () => PeopleIndex.EMPTY,
    presence,
    visitors,
  };
  const stream = (streamId: string): StreamState => ({ streamId, gate: new ChangeGate(o.changeThreshold), tracker: new Tracker({ recheckMs: o.recheckMs }), meter: new StreamMeter(), dirty: false });
  const streams = new Map([['cam', stream('cam')]]);
  const samples = new Map<string, number>();
  let lastCheck = Date.now();
  const checkLeft = () => {
    while (Date.now() - lastCheck >= 1000) {
      lastCheck += 1000;
      for (const visit of presence.over(lastCheck)) events.push(leftEvent(visit, 'not_seen', o.roomId));
    }
  };
  return {
    o,
    ctx,
    hooks,
    events,
    failures,
    visitorErrors,
    calls,
    visitors,
    presence,
    streams,
    /** detect_faces fails with this from now on (undefined: it works again). */
    failDetect(error: Error | undefined) {
      detectFault = error;
    },
    /** The compare's answers from now on, by call number. */
    answer(fn: (call: number) => Answer) {
      answer = fn;
    },
    /** One sample SAMPLE_MS after the last, showing `boxes` on `streamId`; the watcher's 1 s check runs as time goes. */
    async sample(boxes: Box[], streamId = 'cam') {
      jest.advanceTimersByTime(SAMPLE_MS);
      checkLeft();
      faces = boxes;
      if (!streams.has(streamId)) streams.set(streamId, stream(streamId));
      const now = performance.now();
      samples.set(streamId, (samples.get(streamId) ?? 0) + 1);
      await analyseSample({ picture: picture(samples.get(streamId)!), arrival: now, decodedAt: now }, streams.get(streamId)!, ctx);
    },
    /** `seconds` of samples with `boxes` in view. */
    async during(seconds: number, boxes: Box[], streamId = 'cam') {
      for (let i = 0; i < (seconds * 1000) / SAMPLE_MS; i++) await this.sample(boxes, streamId);
    },
    /** The watcher stops: every visit under way ends. */
    stop() {
      for (const visit of presence.close()) events.push(leftEvent(visit, 'stopped', o.roomId));
    },
    counters(streamId = 'cam') {
      return streams.get(streamId)!.meter.counters;
    },
  };
}

// The standard clip's rhythm: A 3 s, the stranger B 3 s, nobody 2 s.
async function loop(s: ReturnType<typeof scene>, times: number, a: Answer = A(), b: Answer = STRANGER): Promise<void> {
  for (let i = 0; i < times; i++) {
    s.answer(() => a);
    await s.during(3, [AT]);
    s.answer(() => b);
    // B stands elsewhere: a new track, not A's.
    await s.during(3, [ELSEWHERE]);
    await s.during(2, []);
  }
}

beforeEach(() => jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
afterEach(() => jest.useRealTimers());

describe('arrived, match and left', () => {
  test('a person who comes back within the cooldown arrives on each visit, matched once; the arrival comes before the match', async () => {
    const s = scene();
    const seenHere: string[][] = [];
    for (let i = 0; i < 2; i++) {
      s.answer(() => A());
      for (let k = 0; k < 6; k++) {
        await s.sample([AT]);
        seenHere.push(s.presence.here.map((v) => ('faceId' in v.who ? v.who.faceId : v.kind)));
      }
      for (let k = 0; k < 10; k++) {
        await s.sample([]);
        seenHere.push(s.presence.here.map((v) => ('faceId' in v.who ? v.who.faceId : v.kind)));
      }
    }
    const ofA = arrivals(s.events).filter((e) => e.face_id === 'face-a');
    // The cooldown (600 s) held back A's second match, not A's second arrival.
    expect(matches(s.events)).toHaveLength(1);
    expect(ofA).toHaveLength(2);
    for (const a of ofA) {
      expect(a).toMatchObject({ kind: 'person', label: null, face_id: 'face-a', score: 0.93, room: 'room-1', stream_id: 'cam' });
      expect(isJpeg(a.snapshot)).toBe(true);
      expect(isJpeg(a.face)).toBe(true);
      expect(a.quality).toMatchObject({ greyscale: false });
      expect(a.quality.face_px).toBeGreaterThan(100);
    }
    expect(s.events.indexOf(ofA[0])).toBeLessThan(s.events.indexOf(matches(s.events)[0]));
    expect(s.counters().events.arrived).toBe(2);
    // Who is here now was A at some point, and nobody at another.
    expect(seenHere.some((list) => list.includes('face-a'))).toBe(true);
    expect(seenHere.some((list) => list.length === 0)).toBe(true);
    expect(expectPairs(s.events).size).toBe(0);
  });

  test('left: once per visit, with the visit\'s times, sent once it has been over for leftAfter; visits do not overlap', async () => {
    const s = scene();
    await loop(s, 2);
    await s.during(3, []);
    const lefts = departures(s.events).filter((l) => l.kind === 'person');
    const [match] = matches(s.events);
    expect(lefts).toHaveLength(2);
    for (const l of lefts) {
      expect(l).toMatchObject({ reason: 'not_seen', face_id: 'face-a', label: null, room: match.room, stream_id: match.stream_id });
      expect(l).not.toHaveProperty('visitor_id');
      const arrived = Date.parse(l.arrived_at);
      const left = Date.parse(l.left_at);
      expect(left).toBeGreaterThan(arrived);
      expect(l.duration_s).toBeCloseTo((left - arrived) / 1000, 0);
      // In view 3 s: seen from the first to the last of those samples.
      expect(l.duration_s).toBe(2.5);
      expect(Date.parse(l.time) - left).toBeGreaterThanOrEqual(2000);
      // ... and found by the next 1 s check after that.
      expect(Date.parse(l.time) - left).toBeLessThan(3000);
    }
    expect(Date.parse(lefts[1].arrived_at)).toBeGreaterThan(Date.parse(lefts[0].left_at));
    expect(Date.parse(match.time)).toBeLessThanOrEqual(Date.parse(lefts[0].arrived_at));
    expect(expectPairs(s.events).size).toBe(0);
  });

  test('a verdict that comes late (the service failing at a start) does not shorten the visit: it began at the first sighting', async () => {
    const s = scene();
    const busy = () => Object.assign(new Error('service unavailable'), { status: 503, code: 'server_error' });
    // The first four compares fail (2 s of samples): A's verdict comes with the fifth sample.
    s.answer((call) => (call <= 4 ? busy() : A()));
    await s.sample([AT]);
    const firstSeen = Date.now();
    await s.during(5.5, [AT]);
    const lastSeen = Date.now();
    await s.during(3, []);
    const [arrived] = arrivals(s.events);
    expect(Date.parse(arrived.arrived_at)).toBe(firstSeen);
    // Told when the verdict came; its latency is the lag behind the verdict's own frame.
    expect(Date.parse(arrived.time) - Date.parse(arrived.arrived_at)).toBe(2000);
    expect(arrived.latency_ms).toBe(0);
    const [left] = departures(s.events);
    expect(left).toMatchObject({ visit_id: arrived.visit_id, reason: 'not_seen', arrived_at: arrived.arrived_at, left_at: new Date(lastSeen).toISOString() });
    // In view 6 s: seen from the first to the last of those samples.
    expect(left.duration_s).toBe(5.5);
    expect(expectPairs(s.events).size).toBe(0);
  });

  test('strangers who are not remembered: one visit and one unknown per track, never two for one track; a stop closes every visit', async () => {
    const s = scene();
    await loop(s, 3);
    s.answer(() => STRANGER);
    await s.during(1, [ELSEWHERE]);
    const here = s.presence.here.length;
    expect(here).toBe(1);
    s.stop();
    const strangers = arrivals(s.events).filter((e) => e.kind === 'stranger');
    expect(strangers).toHaveLength(4);
    for (const a of strangers) expect(typeof a.track).toBe('number');
    expect(new Set(strangers.map((a) => a.track)).size).toBe(4);
    const u = unknowns(s.events);
    expect(u).toHaveLength(4);
    expect(new Set(u.map((e) => e.track)).size).toBe(u.length);
    for (const e of u) expect(e).toMatchObject({ score: 0.21, stream_id: 'cam' });
    for (const e of u) expect(e).not.toHaveProperty('reason');
    expect(matches(s.events)).toHaveLength(1);
    expect(expectPairs(s.events).size).toBe(0);
    expect(departures(s.events).filter((l) => l.reason === 'stopped')).toHaveLength(here);
    for (const l of departures(s.events)) expect(['not_seen', 'stopped']).toContain(l.reason);
    expect(s.presence.here).toEqual([]);
  });

  test('the cooldown is per stream unless its scope is the room: a publisher back under a new stream id is not matched again', async () => {
    for (const [scope, expected] of [['stream', 2], ['room', 1]] as const) {
      const s = scene({ cooldownScope: scope });
      s.answer(() => A());
      await s.during(1, [AT], 'first');
      await s.during(1, [AT], 'again');
      expect(matches(s.events).map((m) => m.stream_id)).toEqual(['first', 'again'].slice(0, expected));
    }
  });

  test('a stranger recognised on a better sample: the stranger\'s visit ends (recognised) and the person arrives', async () => {
    const s = scene();
    s.answer(() => STRANGER);
    await s.during(1, [AT]);
    s.answer(() => A());
    // Larger in the frame (a quarter more pixels a side): clearly better, compared again.
    await s.during(1, [{ left: 230, top: 130, right: 420, bottom: 320 }]);
    const lefts = departures(s.events);
    expect(lefts).toEqual([expect.objectContaining({ kind: 'stranger', reason: 'recognised' })]);
    expect(arrivals(s.events).map((a) => a.kind)).toEqual(['stranger', 'person']);
    expect(s.events.map((e) => e.event)).toEqual(['arrived', 'unknown', 'left', 'arrived', 'match']);
    expect(expectPairs(s.events).size).toBe(1);
  });
});

describe('ignore', () => {
  test('the muted person sends no match, arrived or left, is counted instead, and is never a stranger', async () => {
    const s = scene({ labels: { 'face-a': 'Alice' }, ignore: ['Alice'] });
    await loop(s, 2);
    s.stop();
    const aboutA = s.events.filter((e) => (e as { face_id?: string }).face_id === 'face-a' || (e as { label?: string | null }).label === 'Alice');
    expect(aboutA).toEqual([]);
    expect(matches(s.events)).toEqual([]);
    expect(s.counters().events.muted).toBeGreaterThanOrEqual(1);
    // Muted once per cooldown, not per sample.
    expect(s.counters().events.muted).toBe(1);
    const strangers = arrivals(s.events).filter((e) => e.kind === 'stranger');
    expect(strangers).toHaveLength(2);
    expect(unknowns(s.events)).toHaveLength(strangers.length);
    expect(arrivals(s.events)).toHaveLength(strangers.length);
    expect(expectPairs(s.events).size).toBe(0);
  });
});

describe('faces compare cannot use', () => {
  test('a face the service finds in no crop ends in one unknown (score null, reason not_comparable) with its crop, after the retries', async () => {
    const s = scene();
    s.answer(() => noFace());
    await s.during(4, [AT]);
    const u = unknowns(s.events);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({ score: null, reason: 'not_comparable' });
    expect(isJpeg(u[0].face)).toBe(true);
    expect(isJpeg(u[0].snapshot)).toBe(true);
    expect(arrivals(s.events)).toEqual([expect.objectContaining({ kind: 'stranger', score: null, track: u[0].track })]);
    const f = s.counters().faces;
    expect(f.notComparable).toBe(1);
    // Tried in several samples, with another crop each time, before it was called not comparable.
    expect(f.missedAll).toBeGreaterThanOrEqual(3 * f.notComparable);
    expect(f.notFoundByCompare).toBe(f.missedAll);
    expect(f.retried).toBeGreaterThanOrEqual(3 * f.notComparable);
    expect(f.recovered).toBe(0);
    // A face the service could not find is not an API failure.
    expect(s.failures).toEqual([]);
    expect(s.counters().api.failed).toBe(0);
    // Once decided it is not compared again.
    const compares = s.calls.compare;
    await s.during(2, [AT]);
    expect(s.calls.compare).toBe(compares);
    expect(unknowns(s.events)).toHaveLength(1);
  });

  test('a face missed in the first crop and found in another: recovered, and every first miss is accounted for', async () => {
    const s = scene();
    // Each appearance: the first crop is missed, the next candidate is found.
    s.answer((call) => (call % 2 === 1 ? noFace() : STRANGER));
    await s.during(2, [AT]);
    await s.during(2, []);
    await s.during(2, [AT]);
    const u = unknowns(s.events);
    const f = s.counters().faces;
    expect(f.notFoundByCompare).toBeGreaterThanOrEqual(1);
    expect(f.recovered).toBe(2);
    expect(f.notFoundByCompare).toBe(f.recovered + f.missedAll);
    expect(u.filter((e) => e.score === null)).toHaveLength(f.notComparable);
    // One event per appearance (track): nothing the detector saw went silent.
    expect(u).toHaveLength(2);
    expect(new Set(u.map((e) => e.track)).size).toBe(u.length);
  });
});

describe('remembered visitors', () => {
  test('a stranger appearing three times keeps one visitor_id; a person of the collection is still a match, never a visitor', async () => {
    const store = new MemoryVisitorStore();
    const s = scene({ rememberVisitors: true, cooldownSeconds: 1 }, store);
    await s.visitors!.open(Date.now());
    // The stranger is unknown until enrolled; after that the collection finds their face.
    s.answer(() => A());
    await s.during(3, [AT]);
    let enrolled = false;
    for (let i = 0; i < 3; i++) {
      s.answer(() => (enrolled ? [{ faceId: 'visitor-1', score: 0.95 }] : STRANGER));
      await s.during(3, [ELSEWHERE]);
      enrolled = true;
      await s.during(2, []);
    }
    s.stop();
    const [first, ...again] = unknowns(s.events);
    expect(first).toMatchObject({ first_visit: true, visits: 1, visitor_id: 'visitor-1' });
    expect(again).toHaveLength(2);
    again.forEach((e, i) => expect(e).toMatchObject({ visitor_id: first.visitor_id, first_visit: false, visits: i + 2 }));
    expect(matches(s.events).filter((e) => e.face_id === 'face-a')).toHaveLength(1);
    expect(s.counters().api.enrol).toBe(1);
    expect(s.calls.addFace).toBe(1);
    await s.visitors!.flush();
    expect((store.load() as { visitors: { visitorId: string; visits: number }[] }).visitors).toEqual([expect.objectContaining({ visitorId: 'visitor-1', visits: 3 })]);
    // A visitor's visits are the visitor's kind, one per appearance, each closed.
    expect(arrivals(s.events).map((a) => a.kind)).toEqual(['person', 'visitor', 'visitor', 'visitor']);
    expect(expectPairs(s.events).size).toBe(0);

    // Named in labels: the visitor is a person now, matched with the label, with no new enrolment.
    const named = scene({ rememberVisitors: true, labels: { 'visitor-1': 'Bob' } }, store);
    await named.visitors!.open(Date.now());
    named.answer(() => [{ faceId: 'visitor-1', score: 0.95 }]);
    await named.during(2, [ELSEWHERE]);
    expect(matches(named.events)).toEqual([expect.objectContaining({ face_id: 'visitor-1', label: 'Bob' })]);
    expect(unknowns(named.events)).toEqual([]);
    expect(named.counters().api.enrol).toBe(0);
    expect(named.visitors!.has('visitor-1')).toBe(false);
  });

  test('visitors past their retention leave the collection; a store that cannot be read is an error, and strangers are not remembered', async () => {
    const longAgo = new Date(T0 - 40 * 86_400_000).toISOString();
    const store = new MemoryVisitorStore();
    store.save({ kind: 'vision-streaming-visitors', version: 1, collectionId: 'collection-1', visitors: [{ visitorId: 'old-face', firstSeen: longAgo, lastSeen: longAgo, visits: 2 }] });
    const s = scene({ rememberVisitors: true, visitorRetentionDays: 30 }, store);
    await s.visitors!.open(Date.now());
    expect(s.calls.removed).toEqual(['old-face']);
    await s.visitors!.flush();
    expect((store.load() as { visitors: unknown[] }).visitors).toEqual([]);
    expect(s.visitorErrors).toEqual([]);

    const broken = { load: () => Promise.reject(Object.assign(new Error('EACCES: permission denied, open /x/visitors.json'), { code: 'EACCES' })), save: () => undefined };
    const b = scene({ rememberVisitors: true }, broken);
    await b.visitors!.open(Date.now());
    expect(b.visitorErrors).toEqual([expect.objectContaining({ code: 'visitor_store_failed', message: expect.stringContaining('EACCES') })]);
    expect(b.visitorErrors[0]).toBeInstanceOf(VisitorError);
    await b.during(1, [ELSEWHERE]);
    const [u] = unknowns(b.events);
    expect(u).toBeDefined();
    expect(u).not.toHaveProperty('visitor_id');
    expect(b.calls.addFace).toBe(0);
  });
});

describe('two streams', () => {
  test('a visit is the room\'s: someone on both cameras arrives once, on the first that saw them; the pairing holds, the stop closes who is here', async () => {
    const s = scene({ rememberVisitors: true, cooldownSeconds: 1 });
    await s.visitors!.open(Date.now());
    // Once enrolled on either camera, the stranger's face is in the collection for both.
    const visitor = (): Answer => (s.calls.addFace > 0 ? [{ faceId: 'visitor-1', score: 0.95 }] : STRANGER);
    for (let i = 0; i < 3; i++) {
      for (const [box, answer] of [
        [AT, () => A()],
        [ELSEWHERE, visitor],
      ] as const) {
        s.answer(answer);
        // The two cameras see the same someone, the front one a sample earlier.
        for (let k = 0; k < 6; k++) {
          await s.sample([box], 'front');
          await s.sample([box], 'garage');
        }
      }
      for (let k = 0; k < 4; k++) {
        await s.sample([], 'front');
        await s.sample([], 'garage');
      }
    }
    s.answer(() => A());
    await s.sample([AT], 'front');
    const before = s.presence.here.length;
    expect(before).toBe(1);
    s.stop();
    expect(expectPairs(s.events).size).toBe(0);
    const kinds = new Set(arrivals(s.events).map((a) => a.kind));
    expect(kinds).toEqual(new Set(['person', 'visitor']));
    expect(arrivals(s.events).every((a) => a.stream_id === 'front')).toBe(true);
    // Four visits of A and three of the visitor: one arrived each, although both cameras saw them.
    expect(arrivals(s.events)).toHaveLength(7);
    expect(new Set([...matches(s.events), ...unknowns(s.events)].map((e) => e.stream_id))).toEqual(new Set(['front', 'garage']));
    expect(departures(s.events).filter((l) => l.reason === 'stopped')).toHaveLength(before);
  });
});

describe('sizes and pauses', () => {
  test('a face below minFaceSize is skipped and counted, not compared; the other face of the frame is', async () => {
    const s = scene({ minFaceSize: 110 });
    s.answer(() => STRANGER);
    // A's face about 80 px beside B's at 150 px, in one frame.
    await s.during(2, [{ left: 130, top: 180, right: 210, bottom: 260 }, { left: 375, top: 145, right: 525, bottom: 295 }]);
    expect(matches(s.events)).toEqual([]);
    expect(unknowns(s.events)).toHaveLength(1);
    expect(unknowns(s.events)[0].location.left).toBeGreaterThan(320);
    const f = s.counters().faces;
    expect(f.skippedSmall).toBeGreaterThan(0);
    expect(f.compared).toBe(1);
    expect(s.calls.compare).toBe(1);
  });

  test('a spent quota pauses analysis with one error event naming the stream, and analysis resumes by itself', async () => {
    const s = scene({ quotaPauseSeconds: 1.5 });
    const timers = new Timers();
    // The reporter reads only the stream's meter.
    const cam = { meter: s.streams.get('cam')!.meter } as unknown as StreamWatch;
    const reporter = new WatchReporter(s.o, (e) => s.events.push(e), { streams: () => new Map([['cam', cam]]), decoder: () => undefined, present: () => [] }, timers);
    Object.assign(s.hooks, { paused: () => reporter.paused(), apiFailed: (err: unknown, id: string) => reporter.apiFailed(err, id), apiSucceeded: () => reporter.apiSucceeded() });
    reporter.setState('watching');
    s.failDetect(new ClientError('limit_exceeded', 'quota spent', { status: 429, retryable: false }));
    await s.sample([AT]);
    const errors = () => s.events.filter((e): e is ErrorEvent => e.event === 'error');
    const states = () => s.events.filter((e): e is StatusEvent => e.event === 'status').map((e) => e.state);
    expect(states()).toEqual(['watching', 'paused']);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toMatchObject({ source: 'api', stream_id: 'cam', error: { status: 429, retryable: false } });
    const callsWhenPaused = s.calls.detect;
    // The fault is over, but the pause holds: the samples within it are skipped and counted.
    s.failDetect(undefined);
    s.answer(() => A());
    await s.sample([AT]);
    await s.sample([AT]);
    expect(s.calls.detect).toBe(callsWhenPaused);
    expect(s.counters().samples.skippedPaused).toBe(2);
    await s.sample([AT]);
    expect(states()).toEqual(['watching', 'paused', 'watching']);
    expect(s.calls.detect).toBe(callsWhenPaused + 1);
    expect(matches(s.events)).toHaveLength(1);
    expect(errors()).toHaveLength(1);
    timers.close();
  });
});
