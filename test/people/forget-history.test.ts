import { access, mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import os from 'node:os';
import path from 'node:path';
import { openHistory, type HistoryStore, type VisitPatch } from '../../shared/history';
import { HistoryError } from '../../shared/history/errors';
import { searchByFace } from '../../shared/history/face-search';
import { MemoryPeopleStore, PeopleDirectory } from '../../shared/people';
import type { VisionClient } from '../../shared/vision';
import { caught, startHarness, type Harness } from '../client/harness';
import { astronautFaceOfSize, faceApiSample, faceOfSize, mirrorJpeg, type Rect } from '../support/images';
import { faceOfB } from '../support/clip';

// Forget and search by face reach every visit of a person, however a watcher kept it: under the
// person, as the stranger they were (a visitor id that became their face), or under a face alone (a
// watcher without people). The people directory against the sandbox's vision API on 127.0.0.1 and a
// real SQLite history; a history locked by another writer (a second connection holding its write
// lock) makes the erase fail where a test needs it to.

let h: Harness;
let collectionId: string;
let bFace: Rect;
let dir: string;
let count = 0;
const photoA = () => astronautFaceOfSize(200);
const photoB = () => faceOfSize(faceApiSample(1), bFace, 200);

beforeAll(async () => {
  h = await startHarness({ eagerModel: true });
  collectionId = (await h.client.createCollection()).collectionId;
  bFace = await faceOfB((jpeg) => h.client.detectFaces(jpeg));
  dir = await mkdtemp(path.join(os.tmpdir(), 'forget-history-'));
}, 120_000);
afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh history whose writes wait at most 50 ms for another writer's lock, and the file it is in. */
async function history(): Promise<{ store: HistoryStore; file: string }> {
  count += 1;
  const file = path.join(dir, `visits-${count}.db`);
  return { store: await openHistory({ location: file, busyTimeoutMs: 50 }), file };
}

/** Another writer holding the history's write lock until released. */
function lock(file: string): { release(): void } {
  const db = new DatabaseSync(file);
  db.exec('BEGIN IMMEDIATE');
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** The sandbox's vision client, with `beforeRemove` run before each face leaves the collection (what a watcher does meanwhile). */
function visionWith(beforeRemove: () => Promise<void>): VisionClient {
  return new Proxy(h.client, {
    get(target, key) {
      if (key === 'removeFace') {
        return async (...args: Parameters<VisionClient['removeFace']>) => {
          await beforeRemove();
          return target.removeFace(...args);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const inCollection = async () => new Set((await h.client.listFaces(collectionId)).map((f) => f.faceId));
const visit = (id: string, fields: Partial<VisitPatch>): VisitPatch => ({ visit_id: id, kind: 'person', room_id: 'room-1', stream_id: 'door', arrived_at: '2026-11-20T10:00:00Z', ...fields });
const ids = async (store: HistoryStore) => (await store.search({ limit: 1000 })).visits.map((v) => v.visit_id).sort();

test('a search by face and forget reach the visits of the stranger the person was and those kept under their faces alone; others stay', async () => {
  const { store } = await history();
  const people = new MemoryPeopleStore();
  let during = 0;
  // A watcher without people writes one more visit under her face while her faces leave.
  const vision = visionWith(async () => {
    if (during++ === 0) await store.writeVisit(visit('face-alone-during', { face_id: faceA, arrived_at: '2026-11-20T15:00:00Z' }));
  });
  const directory = new PeopleDirectory({ collectionId, store: people, vision, history: store });
  const alice = (await directory.addPerson({ name: 'Alice', images: [photoA(), mirrorJpeg(astronautFaceOfSize(220))] })).person;
  const faceA = alice.faces[0].face_id;
  const faceA2 = alice.faces[1].face_id;
  const bob = (await directory.addPerson({ name: 'Bob', images: [photoB()] })).person;
  await store.writeVisit(visit('as-person', { person_id: alice.person_id, name: 'Alice', face_id: faceA, arrived_at: '2026-11-20T14:00:00Z' }));
  await store.writeVisit(visit('as-visitor', { kind: 'visitor', visitor_id: faceA2, face_id: faceA2, arrived_at: '2026-11-20T13:00:00Z' }));
  await store.writeVisit(visit('face-alone', { face_id: faceA, label: faceA, arrived_at: '2026-11-20T12:00:00Z' }));
  await store.writeVisit(visit('bob', { person_id: bob.person_id, name: 'Bob', face_id: bob.faces[0].face_id }));
  await store.writeVisit(visit('bob-face-alone', { face_id: bob.faces[0].face_id }));
  const media = [await store.putMedia('face-alone', 'face', Buffer.from('crop'), 'image/jpeg'), await store.putMedia('as-visitor', 'snapshot', Buffer.from('snap'), 'image/jpeg')];
  const kept = await store.putMedia('bob-face-alone', 'face', Buffer.from('bob'), 'image/jpeg');

  const found = await searchByFace({ vision: h.client, collectionId, people, history: store, image: photoA() });
  expect(found.who).toMatchObject({ kind: 'person', person_id: alice.person_id, name: 'Alice' });
  expect(found.page.visits.map((v) => v.visit_id)).toEqual(['as-person', 'as-visitor', 'face-alone']);

  const receipt = await directory.forget({ person: { name: 'Alice' } });
  expect(receipt).toMatchObject({ person_id: alice.person_id, removed_visits: 4, removed_media: 2 });
  expect(receipt.history_error).toBeUndefined();
  expect(await ids(store)).toEqual(['bob', 'bob-face-alone']);
  for (const ref of media) await expect(access(store.mediaPath(ref))).rejects.toMatchObject({ code: 'ENOENT' });
  await access(store.mediaPath(kept));
  await store.close();
}, 60_000);

test('a history that cannot be written stops forget before any face leaves the collection; forgetting again once it can finishes', async () => {
  const { store, file } = await history();
  const people = new MemoryPeopleStore();
  const directory = new PeopleDirectory({ collectionId, store: people, vision: h.client, history: store });
  const carol = (await directory.addPerson({ name: 'Carol', images: [photoB()] })).person;
  await store.writeVisit(visit('carol', { person_id: carol.person_id, name: 'Carol', face_id: carol.faces[0].face_id }));
  const held = lock(file);
  try {
    const err = await caught(() => directory.forget({ person: { name: 'Carol' } }));
    expect(err).toBeInstanceOf(HistoryError);
    expect(err).toMatchObject({ code: 'history_locked', retryable: true });
    expect(err.message).toContain('forget of Carol stopped before anything was removed');
  } finally {
    held.release();
  }
  // Nothing is gone: her face is in the collection, she is in the people, her visit in the history.
  expect((await inCollection()).has(carol.faces[0].face_id)).toBe(true);
  expect((await directory.list()).people.map((p) => p.person_id)).toContain(carol.person_id);
  expect(await ids(store)).toEqual(['carol']);
  expect(await directory.forget({ person: { name: 'Carol' } })).toMatchObject({ removed_faces: carol.faces.map((f) => f.face_id), removed_visits: 1 });
  expect((await inCollection()).has(carol.faces[0].face_id)).toBe(false);
  expect(await ids(store)).toEqual([]);
  await store.close();
}, 60_000);

test('the erase after the faces left failing is the receipt\'s history_error, not silence; forgetting again by person_id erases what it left', async () => {
  const { store, file } = await history();
  const people = new MemoryPeopleStore();
  let held: { release(): void } | undefined;
  // While her face leaves, a watcher writes a visit of hers, then another writer takes the lock.
  const vision = visionWith(async () => {
    if (held) return;
    await store.writeVisit(visit('during', { person_id: dave.person_id, name: 'Dave', face_id: dave.faces[0].face_id, arrived_at: '2026-11-20T11:00:00Z' }));
    held = lock(file);
  });
  const directory = new PeopleDirectory({ collectionId, store: people, vision, history: store });
  const dave = (await directory.addPerson({ name: 'Dave', images: [photoA()] })).person;
  await store.writeVisit(visit('before', { person_id: dave.person_id, name: 'Dave', face_id: dave.faces[0].face_id }));
  let receipt;
  try {
    receipt = await directory.forget({ person: { name: 'Dave' } });
  } finally {
    held?.release();
  }
  // The faces and the person are gone, the visit before too; the one written meanwhile is said to remain.
  expect(receipt).toMatchObject({ person_id: dave.person_id, removed_faces: dave.faces.map((f) => f.face_id), removed_visits: 1, history_error: { code: 'history_locked' } });
  expect(receipt.history_error!.message).toContain(`forget again by person_id ${dave.person_id}`);
  expect((await inCollection()).has(dave.faces[0].face_id)).toBe(false);
  expect(await ids(store)).toEqual(['during']);
  expect(await directory.forget({ person: { person_id: dave.person_id } })).toMatchObject({ already_forgotten: true, removed_visits: 1 });
  expect(await ids(store)).toEqual([]);
  await store.close();
}, 60_000);
