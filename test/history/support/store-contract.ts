import { access } from 'node:fs/promises';
import { InputError } from '../../../shared/errors';
import { HistoryError } from '../../../shared/history/errors';
import type { FaceQuality } from '../../../shared/watch/events';
import type { HistoryQuery, HistoryStore, VisitPatch, VisitRecord } from '../../../shared/history/types';

/**
 * What every engine of the history must do, against a real database: one suite, run for SQLite in
 * sqlite-store.test.ts and for PostgreSQL by its engine's test. `makeStore` gives a fresh, empty
 * store each time (its own database and media folder); the suite closes each store it made.
 */
export function historyStoreContract(engine: string, makeStore: () => Promise<HistoryStore>): void {
  describe(`the history store contract (${engine})`, () => {
    let store: HistoryStore;
    
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('writes a visit on arrival, updates it as it goes with its events appended in order, and lists it while it goes on', async () => {
      await store.writeVisit(arrival('v1', { person_id: 'p1', name: 'Alice', face_id: 'f1', stream_label: 'Door', best_score: 0.91, quality: QUALITY }));
      const open = await store.get('v1');
      expect(open).toMatchObject({ visit_id: 'v1', kind: 'person', person_id: 'p1', name: 'Alice', left_at: null, duration_s: null, room_id: 'room-1', stream_id: 'cam-1', stream_label: 'Door', best_score: 0.91 });
      expect(open!.quality).toEqual(QUALITY);
      expect(open!.events).toEqual([{ event: 'arrived', time: '2026-11-20T10:00:00.000Z' }]);
      const during = await store.search({ person_id: 'p1', since: '2026-11-20T10:00:30Z' });
      expect(during.visits.map((v) => v.visit_id)).toEqual(['v1']);

      await store.writeVisit({ visit_id: 'v1', best_score: 0.95, events: [{ event: 'match', time: '2026-11-20T10:01:00Z', score: 0.95, face_id: 'f1' }] });
      await store.writeVisit({ visit_id: 'v1', left_at: '2026-11-20T10:03:00Z', events: [{ event: 'left', time: '2026-11-20T10:03:00Z', reason: 'gone' }] });
      const closed = await store.get('v1');
      expect(closed).toMatchObject({ left_at: '2026-11-20T10:03:00.000Z', duration_s: 180, best_score: 0.95, name: 'Alice', face_id: 'f1' });
      expect(closed!.events).toEqual([
        { event: 'arrived', time: '2026-11-20T10:00:00.000Z' },
        { event: 'match', time: '2026-11-20T10:01:00.000Z', score: 0.95, face_id: 'f1' },
        { event: 'left', time: '2026-11-20T10:03:00.000Z', reason: 'gone' },
      ]);
      expect(Date.parse(closed!.updated_at)).toBeGreaterThan(0);
      expect(await store.get('nope')).toBeUndefined();
    });

    it('refuses a first write without kind, room, stream or arrival, and bad fields, naming the field', async () => {
      await expectInput(store.writeVisit({ visit_id: 'v1', kind: 'person', room_id: 'r', stream_id: 's' }), 'arrived_at');
      await expectInput(store.writeVisit({ visit_id: 'v1', room_id: 'r', stream_id: 's', arrived_at: '2026-11-20T10:00:00Z' }), 'kind');
      await expectInput(store.writeVisit(arrival('v1', { kind: 'cat' as never })), 'kind');
      await expectInput(store.writeVisit(arrival('v1', { arrived_at: '20 Nov 2026' })), 'arrived_at');
      await expectInput(store.writeVisit(arrival('v1', { left_at: '2026-11-20T09:00:00Z' })), 'left_at');
      await expectInput(store.writeVisit(arrival('', {})), 'visit_id');
      await expectInput(store.writeVisit(arrival('v1', { events: [{ event: 'waved' as never, time: '2026-11-20T10:00:00Z' }] })), 'events[0].event');
      // Nothing of a refused write was kept.
      expect(await store.get('v1')).toBeUndefined();
    });

    it('merges a later write into the visit: left_at before the stored arrival refused with nothing kept, duration from the times unless given, a repeated first write an update', async () => {
      await store.writeVisit(arrival('v1', { person_id: 'p1', name: 'Alice', best_score: 0.8 }));
      await expectInput(store.writeVisit({ visit_id: 'v1', left_at: '2026-11-20T09:59:59Z', events: [{ event: 'left', time: '2026-11-20T09:59:59Z' }] }), 'left_at');
      expect(await store.get('v1')).toMatchObject({ left_at: null, duration_s: null, events: [{ event: 'arrived' }] });
      // Arrival moved later than a stored leaving: refused too.
      await store.writeVisit({ visit_id: 'v1', left_at: '2026-11-20T10:02:00Z' });
      await expectInput(store.writeVisit({ visit_id: 'v1', arrived_at: '2026-11-20T10:03:00Z' }), 'left_at');
      expect(await store.get('v1')).toMatchObject({ arrived_at: '2026-11-20T10:00:00.000Z', left_at: '2026-11-20T10:02:00.000Z', duration_s: 120, best_score: 0.8, name: 'Alice' });
      // The arrival moved with the leaving kept: the duration follows; a given duration is kept as given.
      await store.writeVisit({ visit_id: 'v1', arrived_at: '2026-11-20T10:01:30Z' });
      expect((await store.get('v1'))!.duration_s).toBe(30);
      await store.writeVisit({ visit_id: 'v1', duration_s: 12.5, name: null });
      expect(await store.get('v1')).toMatchObject({ duration_s: 12.5, name: null, person_id: 'p1' });
      expect(await ids({ name: 'Alice' })).toEqual([]);
      // A first write sent again (another writer's, say): an update, its event appended, what it leaves out kept.
      await store.writeVisit(arrival('v1', { left_at: null, events: [{ event: 'match', time: '2026-11-20T10:05:00Z', score: 0.7 }] }));
      const again = await store.get('v1');
      expect(again).toMatchObject({ arrived_at: '2026-11-20T10:00:00.000Z', left_at: null, duration_s: 12.5, person_id: 'p1', best_score: 0.8 });
      expect(again!.events.map((e) => e.event)).toEqual(['arrived', 'match']);
      // Going on, it overlaps a range up to its latest event.
      expect(await ids({ since: '2026-11-20T10:04:00Z', until: '2026-11-20T10:06:00Z' })).toEqual(['v1']);
    });

    it('searches by person, name (any case, NFC), visitor, visitor ids, stream, room and kind, newest first', async () => {
      await store.writeVisit(arrival('a1', { person_id: 'p1', name: 'Zoë', arrived_at: '2026-11-20T08:00:00Z' }));
      await store.writeVisit(arrival('a2', { person_id: 'p1', name: 'Zoë', arrived_at: '2026-11-21T08:00:00Z', stream_id: 'cam-2', room_id: 'room-2' }));
      await store.writeVisit(arrival('b1', { kind: 'visitor', visitor_id: 'vis-1', arrived_at: '2026-11-20T09:00:00Z' }));
      await store.writeVisit(arrival('b2', { kind: 'visitor', visitor_id: 'vis-2', arrived_at: '2026-11-20T11:00:00Z', stream_id: 'cam-2' }));
      await store.writeVisit(arrival('c1', { kind: 'stranger', arrived_at: '2026-11-20T12:00:00Z' }));
      expect(await ids({ person_id: 'p1' })).toEqual(['a2', 'a1']);
      // "Zoë" typed decomposed and in capitals.
      expect(await ids({ name: 'ZOE\u0308' })).toEqual(['a2', 'a1']);
      expect(await ids({ visitor_id: 'vis-1' })).toEqual(['b1']);
      expect(await ids({ visitor_ids: ['vis-1', 'vis-2'] })).toEqual(['b2', 'b1']);
      expect(await ids({ stream_id: 'cam-2' })).toEqual(['a2', 'b2']);
      expect(await ids({ room_id: 'room-2' })).toEqual(['a2']);
      expect(await ids({ kind: 'stranger' })).toEqual(['c1']);
      expect(await ids({ kind: 'visitor', stream_id: 'cam-2' })).toEqual(['b2']);
      expect(await ids({})).toEqual(['a2', 'c1', 'b2', 'b1', 'a1']);
      expect(await ids({ person_id: 'p2' })).toEqual([]);
    });

    it('finds the visits that overlap [since, until): one that began before since and left after it, not one that left before it', async () => {
      await store.writeVisit(arrival('before', { arrived_at: '2026-11-19T10:00:00Z', left_at: '2026-11-19T10:10:00Z' }));
      await store.writeVisit(arrival('across', { arrived_at: '2026-11-19T23:50:00Z', left_at: '2026-11-20T00:20:00Z' }));
      await store.writeVisit(arrival('inside', { arrived_at: '2026-11-20T12:00:00Z', left_at: '2026-11-20T12:05:00Z' }));
      await store.writeVisit(arrival('at-until', { arrived_at: '2026-11-21T00:00:00Z', left_at: '2026-11-21T00:05:00Z' }));
      // Still going on, arrived well before the longest visit that has left.
      await store.writeVisit(arrival('going-on', { arrived_at: '2026-11-18T22:00:00Z', events: [{ event: 'arrived', time: '2026-11-18T22:00:00Z' }, { event: 'match', time: '2026-11-19T01:00:00Z', score: 0.9 }] }));
      expect(await ids({ since: '2026-11-20', until: '2026-11-21' })).toEqual(['inside', 'across', 'going-on']);
      expect(await ids({ since: '2026-11-20T00:30:00Z', until: '2026-11-21T00:00:00+00:00' })).toEqual(['inside', 'going-on']);
      expect(await ids({ until: '2026-11-19T12:30:00+02:00' })).toEqual(['before', 'going-on']);
      // A visit that goes on overlaps every range after its arrival, however long ago it arrived.
      expect(await ids({ since: '2026-11-21T00:00:00Z' })).toEqual(['at-until', 'going-on']);
      // Paged one by one, the recent visits and then the one going on since long before.
      const paged: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const result = await store.search({ since: '2026-11-20', until: '2026-11-21', limit: 1, ...(cursor ? { cursor } : {}) });
        paged.push(...result.visits.map((v) => v.visit_id));
        cursor = result.next;
        if (!cursor) break;
      }
      expect(paged).toEqual(['inside', 'across', 'going-on']);
    });

    it('pages newest first with a cursor, ties on the arrival broken by the visit id, nothing twice or left out', async () => {
      const all: string[] = [];
      for (let i = 0; i < 7; i++) {
        const id = `p-${i}`;
        all.push(id);
        // Two visits share each arrival time.
        await store.writeVisit(arrival(id, { person_id: 'p1', arrived_at: new Date(Date.UTC(2026, 10, 20, 10, Math.floor(i / 2))).toISOString() }));
      }
      await store.writeVisit(arrival('other', { person_id: 'p2' }));
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await store.search({ person_id: 'p1', limit: 3, ...(cursor ? { cursor } : {}) });
        sizes.push(result.visits.length);
        seen.push(...result.visits.map((v) => v.visit_id));
        cursor = result.next;
        if (!cursor) break;
      }
      expect(sizes).toEqual([3, 3, 1]);
      expect(seen).toEqual(['p-6', 'p-5', 'p-4', 'p-3', 'p-2', 'p-1', 'p-0']);
      const exact = await store.search({ person_id: 'p1', limit: 7 });
      expect(exact.visits).toHaveLength(7);
      expect(exact.next).toBeUndefined();
    });

    it('refuses a bad query with invalid_input naming the field (and the limit)', async () => {
      const cases: Array<[HistoryQuery, string]> = [
        [{ since: 'yesterday' }, 'since'],
        [{ until: '2026-02-30' }, 'until'],
        [{ since: '2026-11-20T10:00:00' }, 'since'],
        [{ since: '2026-11-21', until: '2026-11-20' }, 'since'],
        [{ since: '2026-11-20', until: '2026-11-20' }, 'since'],
        [{ limit: 0 }, 'limit'],
        [{ limit: 1001 }, 'limit'],
        [{ limit: 2.5 }, 'limit'],
        [{ kind: 'cat' as never }, 'kind'],
        [{ cursor: 'not a cursor' }, 'cursor'],
        [{ cursor: Buffer.from('[1,2]').toString('base64url') }, 'cursor'],
        [{ person_id: '' }, 'person_id'],
        [{ visitor_ids: [] }, 'visitor_ids'],
      ];
      for (const [query, field] of cases) {
        const err = await store.search(query).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(InputError);
        expect({ query, field: (err as InputError).field, code: (err as InputError).code }).toEqual({ query, field, code: 'invalid_input' });
      }
      const limit = await store.search({ limit: 5000 }).catch((e: InputError) => e);
      expect((limit as InputError).limit).toBe('1 to 1000');
      expect((limit as InputError).message).toContain('5000');
    });

    it('takes a query value as a value, never as SQL', async () => {
      await store.writeVisit(arrival('v1', { person_id: 'p1', name: 'Alice' }));
      const hostile = "x' OR '1'='1";
      expect(await ids({ person_id: hostile })).toEqual([]);
      expect(await ids({ name: `${hostile} --` })).toEqual([]);
      expect(await ids({ visitor_ids: ['a', "b'); DELETE FROM visits; --"] })).toEqual([]);
      await store.writeVisit(arrival("v'2", { arrived_at: '2026-11-20T11:00:00Z', person_id: hostile, name: 'Robert"); DROP TABLE visits;--' }));
      expect(await ids({ person_id: hostile })).toEqual(["v'2"]);
      expect(await ids({})).toEqual(["v'2", 'v1']);
    });

    it('keeps media as files named by the history, reads them back, replaces a kind, and refuses names it did not give', async () => {
      await store.writeVisit(arrival('v1', {}));
      const face = await store.putMedia('v1', 'face', Buffer.from('face-jpeg'), 'image/jpeg');
      const clip = await store.putMedia('v1', 'clip', Buffer.from('clip-bytes'), 'video/mp4');
      expect(face).toMatchObject({ bytes: 9, mime: 'image/jpeg' });
      expect(face.name).not.toContain('v1');
      expect((await store.readMedia(face)).toString()).toBe('face-jpeg');
      await access(store.mediaPath(clip));
      const visit = await store.get('v1');
      expect(visit).toMatchObject({ face, clip, snapshot: null });
      const png = await store.putMedia('v1', 'face', Buffer.from('face-png!'), 'image/png');
      expect((await store.get('v1'))!.face).toEqual(png);
      await expect(access(store.mediaPath(face))).rejects.toMatchObject({ code: 'ENOENT' });
      await expectInput(store.putMedia('nope', 'face', Buffer.from('x'), 'image/jpeg'), 'visitId');
      await expectInput(store.putMedia('v1', 'voice' as never, Buffer.from('x'), 'audio/ogg'), 'kind');
      await expectInput(store.putMedia('v1', 'face', Buffer.alloc(0), 'image/jpeg'), 'bytes');
      await expectInput(store.putMedia('v1', 'face', Buffer.from('x'), '../../etc'), 'mime');
      expect(() => store.mediaPath({ name: '../../etc/passwd', bytes: 1, mime: 'text/plain' })).toThrow(InputError);
      await expectInput(store.readMedia({ name: '/etc/passwd', bytes: 1, mime: 'text/plain' }), 'media');
    });

    it('deletes one visit with its media, counted', async () => {
      await store.writeVisit(arrival('v1', { events: [{ event: 'arrived', time: '2026-11-20T10:00:00Z' }] }));
      await store.writeVisit(arrival('v2', {}));
      const face = await store.putMedia('v1', 'face', Buffer.from('f'), 'image/jpeg');
      const snapshot = await store.putMedia('v1', 'snapshot', Buffer.from('s'), 'image/jpeg');
      const kept = await store.putMedia('v2', 'face', Buffer.from('k'), 'image/jpeg');
      expect(await store.deleteVisit('v1')).toEqual({ removed_visits: 1, removed_media: 2 });
      expect(await store.get('v1')).toBeUndefined();
      for (const ref of [face, snapshot]) await expect(access(store.mediaPath(ref))).rejects.toMatchObject({ code: 'ENOENT' });
      await access(store.mediaPath(kept));
      expect(await store.deleteVisit('v1')).toEqual({ removed_visits: 0, removed_media: 0 });
      expect(await ids({})).toEqual(['v2']);
    });

    it('erases every visit and media of a person and of the visitor ids that became them, and nothing else', async () => {
      await store.writeVisit(arrival('p1-a', { person_id: 'p1', name: 'Alice' }));
      await store.writeVisit(arrival('p1-b', { person_id: 'p1', name: 'Alice', arrived_at: '2026-11-21T10:00:00Z' }));
      await store.writeVisit(arrival('vis-a', { kind: 'visitor', visitor_id: 'vis-1' }));
      await store.writeVisit(arrival('vis-b', { kind: 'visitor', visitor_id: 'vis-2' }));
      await store.writeVisit(arrival('other', { person_id: 'p2', name: 'Bob' }));
      await store.writeVisit(arrival('other-vis', { kind: 'visitor', visitor_id: 'vis-3' }));
      const refs = [await store.putMedia('p1-a', 'face', Buffer.from('1'), 'image/jpeg'), await store.putMedia('p1-b', 'clip', Buffer.from('2'), 'video/mp4'), await store.putMedia('vis-b', 'snapshot', Buffer.from('3'), 'image/jpeg')];
      const keep = await store.putMedia('other', 'face', Buffer.from('4'), 'image/jpeg');
      expect(await store.erase({ person_id: 'p1', visitor_ids: ['vis-1', 'vis-2'] })).toEqual({ removed_visits: 4, removed_media: 3 });
      expect(await ids({})).toEqual(['other-vis', 'other']);
      for (const ref of refs) await expect(access(store.mediaPath(ref))).rejects.toMatchObject({ code: 'ENOENT' });
      await access(store.mediaPath(keep));
      expect(await store.erase({ person_id: 'p1' })).toEqual({ removed_visits: 0, removed_media: 0 });
      await expectInput(store.erase({}), 'person_id');
    });

    it('erases the visits kept under the face ids given (a watcher without people), with their media, and no other face\'s', async () => {
      // A match visit of a watcher without people: the collection face that matched, no person or visitor.
      await store.writeVisit(arrival('face-only', { face_id: 'f1', label: 'f1' }));
      await store.writeVisit(arrival('face-only-2', { face_id: 'f2', arrived_at: '2026-11-21T10:00:00Z' }));
      await store.writeVisit(arrival('other-face', { face_id: 'f9' }));
      const gone = [await store.putMedia('face-only', 'face', Buffer.from('1'), 'image/jpeg'), await store.putMedia('face-only-2', 'clip', Buffer.from('2'), 'video/mp4')];
      const keep = await store.putMedia('other-face', 'face', Buffer.from('3'), 'image/jpeg');
      expect(await store.erase({ face_ids: ['f1', 'f2'] })).toEqual({ removed_visits: 2, removed_media: 2 });
      expect(await ids({})).toEqual(['other-face']);
      for (const ref of gone) await expect(access(store.mediaPath(ref))).rejects.toMatchObject({ code: 'ENOENT' });
      await access(store.mediaPath(keep));
      await expectInput(store.erase({ face_ids: [''] }), 'face_ids[0]');
      await expectInput(store.erase({ face_ids: [] }), 'person_id');
    });

    it('searches everyone a who names: the person, the strangers they were and their faces alone, paged and by time range', async () => {
      await store.writeVisit(arrival('as-person', { person_id: 'p1', name: 'Alice', face_id: 'f1', arrived_at: '2026-11-20T12:00:00Z', left_at: '2026-11-20T12:05:00Z' }));
      await store.writeVisit(arrival('as-visitor', { kind: 'visitor', visitor_id: 'f2', face_id: 'f2', arrived_at: '2026-11-20T11:00:00Z', left_at: '2026-11-20T11:05:00Z' }));
      await store.writeVisit(arrival('face-alone', { face_id: 'f1', arrived_at: '2026-11-20T10:00:00Z', left_at: '2026-11-20T10:05:00Z' }));
      // Still going on, arrived long before the range: the open-before part of a range search.
      await store.writeVisit(arrival('going-on', { face_id: 'f2', arrived_at: '2026-11-18T09:00:00Z' }));
      await store.writeVisit(arrival('someone-else', { person_id: 'p2', name: 'Bob', face_id: 'f3', arrived_at: '2026-11-20T13:00:00Z', left_at: '2026-11-20T13:05:00Z' }));
      await store.writeVisit(arrival('other-visitor', { kind: 'visitor', visitor_id: 'f4', face_id: 'f4', arrived_at: '2026-11-20T14:00:00Z', left_at: '2026-11-20T14:05:00Z' }));
      const who = { person_id: 'p1', face_ids: ['f1', 'f2'] };
      expect(await ids({ who })).toEqual(['as-person', 'as-visitor', 'face-alone', 'going-on']);
      expect(await ids({ who: { face_ids: ['f2'] } })).toEqual(['as-visitor', 'going-on']);
      expect(await ids({ who: { person_id: 'p1' } })).toEqual(['as-person']);
      expect(await ids({ who, kind: 'visitor' })).toEqual(['as-visitor']);
      expect(await ids({ who, since: '2026-11-20T10:30:00Z', until: '2026-11-21' })).toEqual(['as-person', 'as-visitor', 'going-on']);
      // Paged one by one, through both parts of the range search: nothing twice, nothing left out.
      for (const range of [{}, { since: '2026-11-20', until: '2026-11-21' }]) {
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 6; page++) {
          const result = await store.search({ who, ...range, limit: 1, ...(cursor ? { cursor } : {}) });
          paged.push(...result.visits.map((v) => v.visit_id));
          cursor = result.next;
          if (!cursor) break;
        }
        expect(paged).toEqual(['as-person', 'as-visitor', 'face-alone', 'going-on']);
      }
      // Values, never SQL.
      expect(await ids({ who: { person_id: "p1' OR '1'='1", face_ids: ["f1') OR ('1'='1"] } })).toEqual([]);
      for (const [bad, field] of [[{}, 'who'], [{ face_ids: [] }, 'who'], [{ face_ids: [''] }, 'who.face_ids[0]'], [{ person_id: '' }, 'who.person_id'], [{ face_ids: 'f1' }, 'who.face_ids']] as const) {
        await expectInput(store.search({ who: bad as never }), field);
      }
    });

    it('sweeps by age (whole visits) and then by media size (oldest media first, the rows stay), with a fake clock', async () => {
      const now = new Date('2026-11-28T12:00:00Z');
      const day = (d: number): string => new Date(now.getTime() - d * 86_400_000).toISOString();
      await store.writeVisit(arrival('old', { arrived_at: day(40), left_at: day(40) }));
      await store.writeVisit(arrival('older-but-long', { arrived_at: day(35), left_at: day(29) }));
      await store.writeVisit(arrival('mid', { arrived_at: day(10), left_at: day(10) }));
      await store.writeVisit(arrival('new', { arrived_at: day(1), left_at: day(1) }));
      const oldFace = await store.putMedia('old', 'face', Buffer.alloc(100), 'image/jpeg');
      const midClip = await store.putMedia('mid', 'clip', Buffer.alloc(300), 'video/mp4');
      const midFace = await store.putMedia('mid', 'face', Buffer.alloc(50), 'image/jpeg');
      const newClip = await store.putMedia('new', 'clip', Buffer.alloc(300), 'video/mp4');

      const receipt = await store.sweep({ maxAgeDays: 30, maxMediaBytes: 320 }, now);
      expect(receipt).toEqual({ removed_visits: 1, removed_media: 3, removed_media_for_size: 2, freed_bytes: 450, time: now.toISOString() });
      expect(await ids({})).toEqual(['new', 'mid', 'older-but-long']);
      for (const ref of [oldFace, midClip, midFace]) await expect(access(store.mediaPath(ref))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await store.get('mid')).toMatchObject({ face: null, clip: null });
      expect((await store.get('new'))!.clip).toEqual(newClip);

      // Nothing more to let go: a second sweep removes nothing.
      expect(await store.sweep({ maxAgeDays: 30, maxMediaBytes: 320 }, now)).toMatchObject({ removed_visits: 0, removed_media: 0, freed_bytes: 0 });
      await expectInput(store.sweep({ maxAgeDays: 0, maxMediaBytes: 1 }, now), 'maxAgeDays');
      await expectInput(store.sweep({ maxAgeDays: 1, maxMediaBytes: -1 }, now), 'maxMediaBytes');
    });

    it('closes once, and refuses calls once closed', async () => {
      await store.close();
      await store.close();
      await expect(store.search({})).rejects.toBeInstanceOf(HistoryError);
      await expect(store.writeVisit(arrival('v1', {}))).rejects.toMatchObject({ code: 'history_closed' });
    });

    async function ids(query: HistoryQuery): Promise<string[]> {
      return (await store.search(query)).visits.map((v: VisitRecord) => v.visit_id);
    }
  });
}

/** A face quality as a watcher's event gives it. */
const QUALITY: FaceQuality = { face_px: 120, sharpness: 0.5, brightness: 0.4, greyscale: false, direction: null };

/** A visit's first write, with the fields a test does not care about filled in. */
export function arrival(visitId: string, fields: Partial<VisitPatch>): VisitPatch {
  return { visit_id: visitId, kind: 'person', room_id: 'room-1', stream_id: 'cam-1', arrived_at: '2026-11-20T10:00:00Z', events: [{ event: 'arrived', time: fields.arrived_at ?? '2026-11-20T10:00:00Z' }], ...fields };
}

/** Expects an InputError naming `field`. */
export async function expectInput(promise: Promise<unknown>, field: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  expect({ field: (err as InputError).field, code: (err as InputError).code }).toEqual({ field, code: 'invalid_input' });
}
