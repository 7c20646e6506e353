import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openHistory, type HistoryStore } from '../../shared/history';
import { HistoryRecorder } from '../../shared/history/recorder';
import type { ArrivedEvent, ClipEvent, FaceQuality, LeftEvent, MatchEvent, UnknownEvent } from '../../shared/watch';

// The recorder's rules on a real SQLite history, fed the watcher's events as the watcher makes them
// (the end-to-end path through a real room is recorder.test.ts): which score and face a visit keeps,
// which visit a match or unknown belongs to, and a clip whose file the host removes at once.

let dir: string;
let store: HistoryStore;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'history-recorder-'));
  store = await openHistory({ location: path.join(dir, 'visits.db') });
});
afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const quality = (face_px: number, sharpness: number): FaceQuality => ({ face_px, sharpness, brightness: 0.5, greyscale: false, direction: 'front' });
const jpeg = (tag: string): Buffer => Buffer.from(`\xff\xd8 ${tag} \xff\xd9`, 'latin1');
const base = { room: 'room', stream_id: 's1', location: { left: 0, top: 0, right: 10, bottom: 10 }, latency_ms: 5, time: '2026-11-28T10:00:01.000Z' };

test('a visit keeps its best score and its best face; a stranger\'s unknown goes to their own visit; left closes it', async () => {
  const recorder = new HistoryRecorder(store);
  const arrived: ArrivedEvent = { ...base, event: 'arrived', visit_id: 'v-person', kind: 'person', person_id: 'p_1', name: 'Alice', face_id: 'f1', label: 'Alice', score: 0.8, arrived_at: '2026-11-28T10:00:00.000Z', track: 1, snapshot: jpeg('snap-1'), face: jpeg('face-small'), quality: quality(90, 0.3) };
  const stranger: ArrivedEvent = { ...base, event: 'arrived', visit_id: 'v-stranger', kind: 'stranger', label: null, score: 0.2, arrived_at: '2026-11-28T10:00:00.500Z', track: 2, snapshot: jpeg('snap-2'), face: jpeg('face-stranger'), quality: quality(80, 0.3) };
  const better: MatchEvent = { ...base, event: 'match', face_id: 'f2', person_id: 'p_1', name: 'Alice', label: 'Alice', score: 0.93, track: 1, time: '2026-11-28T10:00:02.000Z', snapshot: jpeg('snap-3'), face: jpeg('face-large'), quality: quality(160, 0.5) };
  const worse: MatchEvent = { ...better, score: 0.75, time: '2026-11-28T10:00:03.000Z', face: jpeg('face-blurred'), quality: quality(60, 0.1) };
  const unknown: UnknownEvent = { ...base, event: 'unknown', score: null, reason: 'not_comparable', track: 2, time: '2026-11-28T10:00:02.500Z', snapshot: jpeg('snap-4'), face: jpeg('face-stranger-2'), quality: quality(40, 0.1) };
  const left: LeftEvent = { event: 'left', visit_id: 'v-person', kind: 'person', person_id: 'p_1', name: 'Alice', face_id: 'f1', label: 'Alice', reason: 'not_seen', room: 'room', stream_id: 's1', arrived_at: arrived.arrived_at, left_at: '2026-11-28T10:00:04.000Z', duration_s: 4, time: '2026-11-28T10:00:06.000Z' };
  for (const e of [arrived, stranger, better, worse, unknown, left]) recorder.record(e);
  // Nothing is written on the caller's turn.
  expect(await store.get('v-person')).toBeUndefined();
  await recorder.close();
  expect(recorder.status()).toMatchObject({ dropped: 0, queued: 0 });
  const person = (await store.get('v-person'))!;
  expect(person).toMatchObject({ best_score: 0.93, quality: quality(160, 0.5), left_at: left.left_at, duration_s: 4, arrived_at: arrived.arrived_at, name: 'Alice' });
  expect(person.events.map((e) => [e.event, e.score ?? null])).toEqual([['arrived', 0.8], ['match', 0.93], ['match', 0.75], ['left', null]]);
  expect(await store.readMedia(person.face!)).toEqual(jpeg('face-large'));
  expect(await store.readMedia(person.snapshot!)).toEqual(jpeg('snap-1'));
  const other = (await store.get('v-stranger'))!;
  expect(other).toMatchObject({ kind: 'stranger', left_at: null, best_score: 0.2 });
  expect(other.events.map((e) => [e.event, e.reason ?? null])).toEqual([['arrived', null], ['unknown', 'not_comparable']]);
  expect(await store.readMedia(other.face!)).toEqual(jpeg('face-stranger'));
  // Closed: later events are not taken.
  recorder.record({ ...left, visit_id: 'v-stranger' });
  await recorder.close();
  expect((await store.get('v-stranger'))!.left_at).toBeNull();
});

test('a clip whose file the host removes as soon as it is told is still kept; a clip error is an event of the visit', async () => {
  const recorder = new HistoryRecorder(store);
  const arrived: ArrivedEvent = { ...base, event: 'arrived', visit_id: 'v-clip', kind: 'stranger', label: null, score: 0.1, arrived_at: '2026-11-28T11:00:00.000Z', track: 7, snapshot: jpeg('s'), face: jpeg('f'), quality: quality(100, 0.4) };
  const file = path.join(dir, 'clip.webm');
  await writeFile(file, Buffer.alloc(4096, 7), { mode: 0o600 });
  const clip: ClipEvent = { event: 'clip', room: 'room', stream_id: 's1', visit_id: 'v-clip', trigger: 'arrived', kind: 'stranger', track: 7, label: null, bytes: 4096, container: 'webm', codec: 'VP8', path: file, ended: 'post_roll', time: '2026-11-28T11:00:09.000Z' };
  const failed: ClipEvent = { event: 'clip', room: 'room', stream_id: 's2', visit_id: 'v-clip', trigger: 'arrived', label: null, error: 'no_key_frame', time: '2026-11-28T11:00:09.500Z' };
  recorder.record(arrived);
  recorder.record(clip);
  // The host holds its copy and removes the file, before any history write has run.
  await unlink(file);
  recorder.record(failed);
  await recorder.close();
  expect(recorder.status()).toMatchObject({ dropped: 0 });
  const visit = (await store.get('v-clip'))!;
  expect(visit.clip).toMatchObject({ bytes: 4096, mime: 'video/webm' });
  expect(await readFile(store.mediaPath(visit.clip!))).toEqual(Buffer.alloc(4096, 7));
  expect(visit.events.map((e) => [e.event, e.reason ?? null])).toEqual([['arrived', null], ['clip', 'no_key_frame']]);
});
