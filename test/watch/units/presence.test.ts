import { Presence, type Identity, type Visit } from '../../../shared/watch/presence';
import { identityFields, leftEvent, presentEntry } from '../../../shared/watch/visit-events';

// Presence on plain inputs: the clock is the `now` each call is given, so a visit's whole life
// (arrive, seen, over, end, close) is checked in microseconds instead of a looped clip in a real room.

const A: Identity = { faceId: 'face-a' };
const P: Identity = { personId: 'person-1', faceId: 'face-p1' };
const V: Identity = { visitorId: 'visitor-1' };
const track = (streamId: string, n: number): Identity => ({ streamId, track: n });
const T0 = Date.parse('2026-01-01T10:00:00.000Z');

describe('Presence', () => {
  test('a visit starts once: the first arrive returns it, later arrives go on with it (last seen, stream, label follow)', () => {
    const p = new Presence(2000);
    const v = p.arrive(A, null, 's1', T0)!;
    expect(v).toMatchObject({ kind: 'person', who: A, label: null, arrivedAt: T0, lastSeen: T0, streamId: 's1' });
    expect(typeof v.visitId).toBe('string');
    expect(p.arrive(A, 'Alice', 's2', T0 + 500)).toBeUndefined();
    expect(p.here).toEqual([expect.objectContaining({ visitId: v.visitId, lastSeen: T0 + 500, streamId: 's2', label: 'Alice', arrivedAt: T0 })]);
  });

  test('kinds and keys: a face, a person (whichever face matched), a visitor and a stranger per track are each one someone', () => {
    const p = new Presence(2000);
    expect(p.arrive(A, null, 's1', T0)!.kind).toBe('person');
    expect(p.arrive(P, 'Pat', 's1', T0)!.kind).toBe('person');
    expect(p.arrive(V, null, 's1', T0)!.kind).toBe('visitor');
    expect(p.arrive(track('s1', 1), null, 's1', T0)!.kind).toBe('stranger');
    // Another face of the same person is the same visit; another track (or the same track number on another stream) is another stranger.
    expect(p.arrive({ personId: 'person-1', faceId: 'face-p2' }, 'Pat', 's1', T0 + 1)).toBeUndefined();
    expect(p.arrive(track('s1', 2), null, 's1', T0)!.kind).toBe('stranger');
    expect(p.arrive(track('s2', 1), null, 's2', T0)!.kind).toBe('stranger');
    // A face id that is also a visitor id, or a person id equal to a face id, does not collide.
    expect(p.arrive({ visitorId: 'face-a' }, null, 's1', T0)!.kind).toBe('visitor');
    expect(p.arrive({ personId: 'face-a', faceId: 'x' }, null, 's1', T0)!.kind).toBe('person');
    expect(p.here).toHaveLength(8);
    expect(new Set(p.here.map((v) => v.visitId)).size).toBe(8);
  });

  test('over: a visit ends once it has not been seen for leftAfter, not before; seen keeps it alive; only visits under way are seen', () => {
    const p = new Presence(2000);
    const v = p.arrive(A, null, 's1', T0)!;
    p.seen(A, 's1', T0 + 1000);
    // Seen without a visit (a track whose visit ended): no visit starts.
    p.seen(V, 's1', T0 + 1000);
    expect(p.over(T0 + 2999)).toEqual([]);
    expect(p.here.map((x) => x.who)).toEqual([A]);
    expect(p.over(T0 + 3000)).toEqual([v]);
    expect(v.lastSeen).toBe(T0 + 1000);
    expect(p.here).toEqual([]);
    // Taken out once: the same visit is never over twice.
    expect(p.over(T0 + 10_000)).toEqual([]);
  });

  test('a visit known late begins at the first sighting and is not over until leftAfter past its verdict, frames being awaited till then', () => {
    const p = new Presence(2000);
    // First seen at T0, last looked at then; the verdict came 3 s later.
    const v = p.arrive(A, null, 's1', T0, T0 - 500, T0 + 3000)!;
    expect(v).toMatchObject({ arrivedAt: T0 - 500, lastSeen: T0, knownAt: T0 + 3000 });
    expect(p.over(T0 + 4999)).toEqual([]);
    p.seen(A, 's1', T0 + 3500);
    // A frame older than the last one seen (another stream's, analysed later) does not move the visit back.
    p.seen(A, 's2', T0 + 3200);
    expect(v).toMatchObject({ lastSeen: T0 + 3500, streamId: 's1' });
    expect(p.over(T0 + 5499)).toEqual([]);
    expect(p.over(T0 + 5500)).toEqual([v]);
    expect(leftEvent(v, 'not_seen', 'r')).toMatchObject({ arrived_at: new Date(T0 - 500).toISOString(), left_at: new Date(T0 + 3500).toISOString(), duration_s: 4 });
  });

  test('someone who comes back after their visit ended starts a new visit, after the old one', () => {
    const p = new Presence(2000);
    const first = p.arrive(A, null, 's1', T0)!;
    p.seen(A, 's1', T0 + 3000);
    expect(p.over(T0 + 4000)).toEqual([]);
    const [ended] = p.over(T0 + 5000);
    expect(ended).toBe(first);
    const second = p.arrive(A, null, 's1', T0 + 8000)!;
    expect(second).toBeDefined();
    expect(second.visitId).not.toBe(first.visitId);
    expect(second.arrivedAt).toBeGreaterThan(first.lastSeen);
  });

  test('two streams: a visit is the room\'s; being seen on either keeps it alive, and it names the last stream', () => {
    const p = new Presence(2000);
    p.arrive(A, null, 'front', T0);
    expect(p.arrive(A, null, 'garage', T0 + 100)).toBeUndefined();
    p.seen(A, 'front', T0 + 1500);
    p.seen(A, 'garage', T0 + 3000);
    expect(p.over(T0 + 4999)).toEqual([]);
    const [v] = p.over(T0 + 5000);
    expect(v).toMatchObject({ streamId: 'garage', lastSeen: T0 + 3000 });
    expect(p.here).toEqual([]);
  });

  test('end takes one visit out at once; a second end (or an end without a visit) is undefined', () => {
    const p = new Presence(2000);
    const s = p.arrive(track('s1', 4), null, 's1', T0)!;
    p.arrive(A, null, 's1', T0);
    expect(p.end(track('s1', 4))).toBe(s);
    expect(p.end(track('s1', 4))).toBeUndefined();
    expect(p.end(V)).toBeUndefined();
    expect(p.here.map((v) => v.who)).toEqual([A]);
  });

  test('close ends every visit under way, leaves nobody here, and no visit starts after it', () => {
    const p = new Presence(2000);
    p.arrive(A, null, 's1', T0);
    p.arrive(V, null, 's1', T0 + 1);
    const all = p.close();
    expect(all.map((v) => v.who)).toEqual([A, V]);
    expect(p.here).toEqual([]);
    expect(p.arrive(track('s1', 1), null, 's1', T0 + 2)).toBeUndefined();
    expect(p.here).toEqual([]);
    expect(p.close()).toEqual([]);
  });

  test('relabel: a person\'s visit follows a rename; a person gone keeps the label; faces and visitors are left alone', () => {
    const p = new Presence(2000);
    p.arrive(P, 'Pat', 's1', T0);
    p.arrive({ personId: 'person-2', faceId: 'f2' }, 'Sam', 's1', T0);
    p.arrive(A, 'label-a', 's1', T0);
    p.arrive(V, null, 's1', T0);
    const asked: string[] = [];
    p.relabel((id) => {
      asked.push(id);
      return id === 'person-1' ? 'Patricia' : undefined;
    });
    expect(asked).toEqual(['person-1', 'person-2']);
    expect(p.here.map((v) => v.label)).toEqual(['Patricia', 'Sam', 'label-a', null]);
  });

  test('here lists the visits earliest first', () => {
    const p = new Presence(2000);
    p.arrive(V, null, 's1', T0);
    p.arrive(A, null, 's1', T0 + 10);
    p.arrive(track('s1', 1), null, 's1', T0 + 20);
    expect(p.here.map((v) => v.kind)).toEqual(['visitor', 'person', 'stranger']);
  });
});

describe('visit events', () => {
  const visit = (who: Identity, kind: Visit['kind'], label: string | null): Visit => ({ visitId: 'visit-1', kind, who, label, arrivedAt: T0, lastSeen: T0 + 2345, knownAt: T0 + 1000, streamId: 'cam' });

  afterEach(() => jest.useRealTimers());

  test('left: the visit\'s id, kind, who, room, stream and times; the duration to a tenth of a second; made now', () => {
    jest.useFakeTimers({ now: T0 + 4345 });
    const e = leftEvent(visit(A, 'person', null), 'not_seen', 'room-1');
    expect(e).toEqual({
      event: 'left',
      visit_id: 'visit-1',
      kind: 'person',
      reason: 'not_seen',
      face_id: 'face-a',
      label: null,
      room: 'room-1',
      stream_id: 'cam',
      arrived_at: '2026-01-01T10:00:00.000Z',
      left_at: '2026-01-01T10:00:02.345Z',
      duration_s: 2.3,
      time: '2026-01-01T10:00:04.345Z',
    });
    expect(e).not.toHaveProperty('visitor_id');
    expect(e.duration_s).toBeCloseTo((Date.parse(e.left_at) - Date.parse(e.arrived_at)) / 1000, 0);
    // Sent leftAfter (2 s) after the last sighting, by the clock of the check that found it over.
    expect(Date.parse(e.time) - Date.parse(e.left_at)).toBe(2000);
  });

  test('the id fields of each kind: a person with name and face, a face, a visitor, a stranger\'s track', () => {
    expect(identityFields(P, 'Pat')).toEqual({ person_id: 'person-1', name: 'Pat', face_id: 'face-p1' });
    expect(identityFields(P, null)).toEqual({ person_id: 'person-1', face_id: 'face-p1' });
    expect(identityFields(A, 'label-a')).toEqual({ face_id: 'face-a' });
    expect(identityFields(V, null)).toEqual({ visitor_id: 'visitor-1' });
    expect(identityFields(track('cam', 7), null)).toEqual({ track: 7 });
    expect(leftEvent(visit(track('cam', 7), 'stranger', null), 'stopped', 'r')).toMatchObject({ kind: 'stranger', reason: 'stopped', track: 7 });
    expect(leftEvent(visit(V, 'visitor', null), 'recognised', 'r')).toMatchObject({ kind: 'visitor', reason: 'recognised', visitor_id: 'visitor-1' });
  });

  test('present: a visit under way with who, since and last seen', () => {
    expect(presentEntry(visit(P, 'person', 'Pat'))).toEqual({
      visit_id: 'visit-1',
      kind: 'person',
      person_id: 'person-1',
      name: 'Pat',
      face_id: 'face-p1',
      label: 'Pat',
      stream_id: 'cam',
      since: '2026-01-01T10:00:00.000Z',
      last_seen: '2026-01-01T10:00:02.345Z',
    });
  });
});
