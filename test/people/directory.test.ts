import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../../shared/errors';
import { FilePeopleStore } from '../../shared/people/file-store';
import { MemoryPeopleStore, PeopleDirectory, PeopleIndex, personVerdict, readPeople, type PeopleDocument, type PeopleStore } from '../../shared/people';
import { MemoryVisitorStore, type VisitorDocument } from '../../shared/watch/visitors';
import { caught, startHarness, type Harness } from '../client/harness';
import { astronautFaceOfSize, encodeJpeg, faceApiSample, faceOfSize, gradientJpeg, mirrorJpeg, type Rect } from '../support/images';
import { faceOfB, frame, loadPeople } from '../watch/support/clip';

// The people directory against the sandbox's vision API on 127.0.0.1: photos through detect_faces
// and add_face, the collection listed through the API, stores shared by two writers.

let h: Harness;
let collectionId: string;
let bFace: Rect;
const photoA = () => astronautFaceOfSize(200);
const photoA2 = () => mirrorJpeg(astronautFaceOfSize(220));
const photoB = () => faceOfSize(faceApiSample(1), bFace, 200);
const photoB2 = () => mirrorJpeg(faceOfSize(faceApiSample(1), bFace, 230));

beforeAll(async () => {
  h = await startHarness({ eagerModel: true, collectionLimit: 10 });
  collectionId = (await h.client.createCollection()).collectionId;
  bFace = await faceOfB((jpeg) => h.client.detectFaces(jpeg));
}, 120_000);
afterAll(() => h.stop());
afterEach(() => h.sandbox.setFaults({}));

const inCollection = async () => new Set((await h.client.listFaces(collectionId)).map((f) => f.faceId));
const directory = (store: PeopleStore = new MemoryPeopleStore(), visitors?: MemoryVisitorStore) => new PeopleDirectory({ collectionId, store, vision: h.client, visitors });

test('a person from photos: each added or refused with the reason; a large face is scaled into the rule, a small one refused', async () => {
  const people = directory();
  const { person, results } = await people.addPerson({ name: '  Door person ', images: [photoA(), astronautFaceOfSize(420), astronautFaceOfSize(80), gradientJpeg()] });
  expect(person).toMatchObject({ name: 'Door person', not_faces: [] });
  expect(person.person_id).toMatch(/^p_[0-9a-f-]{36}$/);
  expect(results.map((r) => r.status)).toEqual(['added', 'added', 'refused', 'refused']);
  expect(results[2]).toMatchObject({ index: 2, code: 'face_too_small' });
  expect((results[2] as { reason: string }).reason).toMatch(/120 to 280 px/);
  expect(results[3]).toMatchObject({ index: 3, code: 'no_face' });
  const added = results.filter((r) => r.status === 'added') as { face_id: string; quality: { face_px: number } }[];
  expect(added[1].quality.face_px).toBeGreaterThan(280);
  expect(person.faces.map((f) => f.face_id)).toEqual(added.map((r) => r.face_id));
  expect(person.faces.every((f) => f.from === 'photo' && Number.isFinite(Date.parse(f.added_at)))).toBe(true);
  const faces = await inCollection();
  for (const r of added) expect(faces.has(r.face_id)).toBe(true);
  const list = await people.list();
  expect(list).toMatchObject({ collection_id: collectionId, capacity: 1000, faces_in_collection: faces.size, room_left: 1000 - faces.size });
  expect(list.people).toEqual([{ person_id: person.person_id, name: 'Door person', faces: 2, not_faces: 0, face_ids: added.map((r) => r.face_id), added_at: expect.any(String) }]);
}, 60_000);

test('a photo with several faces: the largest is taken, with a warning', async () => {
  const { a, b } = loadPeople(bFace);
  const group = encodeJpeg(frame([{ person: a, faceSide: 200, cx: 170, cy: 240 }, { person: b, faceSide: 135, cx: 470, cy: 240 }]), 92);
  const { results } = await directory().addPerson({ name: 'Largest', images: [group] });
  expect(results[0]).toMatchObject({ status: 'added', warning: expect.stringContaining('2 faces in the photo: the largest was taken') });
  expect((results[0] as { quality: { face_px: number } }).quality.face_px).toBeGreaterThan(170);
}, 60_000);

test('bad input is an InputError naming the field, before anything is sent', async () => {
  const people = directory();
  const { person } = await people.addPerson({ name: 'Anna', images: [photoA()] });
  const before = h.requests();
  const cases: [() => Promise<unknown>, string][] = [
    [() => people.addPerson({ name: '   ', images: [photoB()] }), 'name'],
    [() => people.addPerson({ name: 'x'.repeat(101), images: [photoB()] }), 'name'],
    [() => people.addPerson({ name: 'Ann\na', images: [photoB()] }), 'name'],
    [() => people.addPerson({ name: 'ANNA', images: [photoB()] }), 'name'],
    [() => people.addFace({ person: { name: 'Nobody' }, image: photoB() }), 'person'],
    [() => people.addFace({ person: { person_id: 'p_missing' }, image: photoB() }), 'person'],
    [() => people.rename({ person: { name: 'Anna' }, to: '' }), 'to'],
    [() => people.removeFace({ faceId: 'not-a-face-of-anyone' }), 'faceId'],
    [() => people.importLabels({ [person.faces[0].face_id]: 'Someone else' }), `labels.${person.faces[0].face_id}`],
  ];
  for (const [call, field] of cases) {
    const err = await caught(call);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ field, code: 'invalid_input' });
  }
  expect(h.requests()).toBe(before);
  expect((await caught(() => people.addPerson({ name: 'anna ' }))).message).toMatch(/exists already/);
}, 60_000);

test('rename to a taken name says merge; merge makes one person of two', async () => {
  const people = directory();
  const a = (await people.addPerson({ name: 'Al', images: [photoA()] })).person;
  const b = (await people.addPerson({ name: 'Albert', images: [photoA2()] })).person;
  const err = await caught(() => people.rename({ person: { person_id: a.person_id }, to: 'albert' }));
  expect(err).toMatchObject({ field: 'to' });
  expect(err.message).toMatch(/merge/);
  expect(await people.rename({ person: { name: 'al' }, to: 'Alan' })).toMatchObject({ person_id: a.person_id, name: 'Alan' });
  const merged = await people.merge({ from: { name: 'Alan' }, into: { person_id: b.person_id } });
  expect(merged.merged).toEqual({ person_id: a.person_id, name: 'Alan' });
  expect(merged.person.faces.map((f) => f.face_id).sort()).toEqual([...a.faces, ...b.faces].map((f) => f.face_id).sort());
  expect((await people.list()).people.map((p) => p.name)).toEqual(['Albert']);
}, 60_000);

test('two writers at once on one store lose nothing; of two with the same name one wins and leaves no face behind', async () => {
  const store = new MemoryPeopleStore();
  const one = directory(store);
  const two = directory(store);
  const [x, y] = await Promise.all([one.addPerson({ name: 'X', images: [photoA()] }), two.addPerson({ name: 'Y', images: [photoB()] })]);
  await Promise.all([one.addFace({ person: { name: 'Y' }, image: photoB2() }), two.addFace({ person: { name: 'X' }, image: photoA2() })]);
  const doc = readPeople(store.load(), collectionId, store);
  expect(doc.people.map((p) => [p.name, p.faces.length])).toEqual([['X', 2], ['Y', 2]]);
  expect(doc.people.map((p) => p.person_id)).toEqual([x.person.person_id, y.person.person_id]);

  const before = await inCollection();
  const outcomes = await Promise.allSettled([one.addPerson({ name: 'Z', images: [photoA()] }), two.addPerson({ name: 'z', images: [photoA2()] })]);
  expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
  const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
  expect(lost.reason).toMatchObject({ field: 'name' });
  const won = (outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ person: { faces: { face_id: string }[] } }>).value;
  const after = await inCollection();
  expect([...after].filter((id) => !before.has(id))).toEqual(won.person.faces.map((f) => f.face_id));
}, 60_000);

test('a store that cannot be written leaves no face in the collection', async () => {
  const broken: PeopleStore = { load: () => undefined, update: () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })) };
  const before = await inCollection();
  const err = await caught(() => directory(broken).addPerson({ name: 'Nobody', images: [photoA()] }));
  expect(err).toMatchObject({ code: 'people_store_failed' });
  expect(err.message).toMatch(/ENOSPC/);
  expect(await inCollection()).toEqual(before);
}, 60_000);

test('forget removes every face and not-face from the collection and the entry; forgetting again is no error', async () => {
  const visitors = new MemoryVisitorStore();
  const people = directory(new MemoryPeopleStore(), visitors);
  const { person } = await people.addPerson({ name: 'Gone', images: [photoA(), photoA2()] });
  const not = await people.notThisPerson({ person: { name: 'Gone' }, image: photoB() });
  const notId = not.person.not_faces[0].face_id;
  const receipt = await people.forget({ person: { name: 'gone' } });
  expect(receipt).toMatchObject({ person_id: person.person_id, name: 'Gone', removed_faces: person.faces.map((f) => f.face_id), removed_not_faces: [notId], removed_visitors: [] });
  expect(receipt.left).toBeUndefined();
  const faces = await inCollection();
  for (const id of [...receipt.removed_faces, notId]) expect(faces.has(id)).toBe(false);
  expect((await people.list()).people).toEqual([]);
  const again = await people.forget({ person: { person_id: person.person_id } });
  expect(again).toMatchObject({ person_id: person.person_id, already_forgotten: true, removed_faces: [] });
}, 60_000);

test('forget that fails part-way records what is left and finishes when run again', async () => {
  const people = directory();
  const { person } = await people.addPerson({ name: 'Half', images: [photoA(), photoA2()] });
  h.sandbox.setFaults({ faces: { serverError: 1 } });
  const first = await people.forget({ person: { name: 'Half' } });
  h.sandbox.setFaults({});
  expect(first.left?.sort()).toEqual(person.faces.map((f) => f.face_id).sort());
  expect((await people.list()).people.map((p) => p.name)).toEqual(['Half']);
  const second = await people.forget({ person: { name: 'Half' } });
  expect(second.left).toBeUndefined();
  expect(second.removed_faces.sort()).toEqual(person.faces.map((f) => f.face_id).sort());
  const faces = await inCollection();
  for (const f of person.faces) expect(faces.has(f.face_id)).toBe(false);
  expect((await people.list()).people).toEqual([]);
}, 60_000);

test('not-this-person turns the next such face into unknown with reason not_person', async () => {
  const store = new MemoryPeopleStore();
  const people = directory(store);
  await people.addPerson({ name: 'Anna', images: [photoA()] });
  const judge = async (threshold: number) => {
    const doc = readPeople(store.load(), collectionId, store);
    // The collection also holds other tests' faces: only this directory's people are judged.
    const ours = new Set(doc.people.flatMap((p) => [...p.faces, ...p.not_faces].map((f) => f.face_id)));
    const scores = (await h.client.compareWithCollection(collectionId, photoB2(), { maxResults: 1000 })).target.faces.filter((f) => ours.has(f.faceId));
    return personVerdict(scores.map((f) => ({ face_id: f.faceId, score: f.score })), PeopleIndex.of(doc), { threshold, closestBar: 0 });
  };
  // A threshold low enough that B passes for Anna: the lookalike case.
  const anna = (await judge(0)) as { kind: string; name: string; score: number };
  const threshold = anna.kind === 'person' ? anna.score : NaN;
  expect(await judge(threshold)).toMatchObject({ kind: 'person', name: 'Anna' });
  await people.notThisPerson({ person: { name: 'Anna' }, image: photoB() });
  expect(await judge(threshold)).toMatchObject({ kind: 'unknown', reason: 'not_person', closest: { name: 'Anna', score: threshold } });
}, 60_000);

test('a remembered visitor moves into a person: the same face, dropped from the visitor store', async () => {
  const visitors = new MemoryVisitorStore();
  const visitorId = (await h.client.addFace(collectionId, photoB())).faceId;
  const stamp = new Date().toISOString();
  const doc: VisitorDocument = { kind: 'vision-streaming-visitors', version: 1, collectionId, visitors: [{ visitorId, firstSeen: stamp, lastSeen: stamp, visits: 2 }] };
  visitors.save(doc);
  const people = directory(new MemoryPeopleStore(), visitors);
  const { person } = await people.addPerson({ name: 'Visitor now known', visitorId });
  expect(person.faces).toEqual([{ face_id: visitorId, added_at: expect.any(String), from: 'visitor' }]);
  expect(visitors.load()?.visitors).toEqual([]);
  expect((await inCollection()).has(visitorId)).toBe(true);
  expect(await caught(() => people.addPerson({ name: 'Again', visitorId }))).toMatchObject({ field: 'visitorId' });
}, 60_000);

test('a document of another collection or with a broken seal is refused, naming the store', async () => {
  const sealed = new MemoryPeopleStore({ name: 'people.json', key: Buffer.from('one key') });
  await directory(sealed).addPerson({ name: 'Sealed' });
  const saved = sealed.load() as PeopleDocument;
  const otherKey: PeopleStore = { name: 'people.json', key: Buffer.from('another key'), load: () => saved, update: () => Promise.reject(new Error('unused')) };
  expect(await caught(() => directory(otherKey).list())).toMatchObject({ code: 'people_store_untrusted', message: expect.stringContaining('people.json') });
  const elsewhere = new PeopleDirectory({ collectionId: 'another-collection', store: sealed, vision: h.client });
  expect(await caught(() => elsewhere.list())).toMatchObject({ code: 'people_store_mismatch', message: expect.stringContaining('people.json') });
}, 60_000);

test('names: kept in NFC; control, zero-width and bidi control characters refused naming the field, before anything is sent', async () => {
  const people = directory();
  const { person } = await people.addPerson({ name: 'Jose\u0301', images: [photoA()] });
  expect(person.name).toBe('Jos\u00e9');
  expect((await people.rename({ person: { name: 'JOS\u00c9' }, to: 'Zoe\u0308' })).name).toBe('Zo\u00eb');
  const before = h.requests();
  const names = ['Al\u200Bice', 'Al\u200Cice', 'Al\u200Fice', 'Al\u202Eice', 'Al\u2066ice', '\uFEFFAlice', 'Al\u0000ice', 'Al\u0085ice'];
  for (const name of names) {
    const err = await caught(() => people.addPerson({ name, images: [photoB()] }));
    expect({ name, err }).toEqual({ name, err: expect.objectContaining({ code: 'invalid_input', field: 'name' }) });
  }
  expect((await caught(() => people.addPerson({ name: 'Al\u200Bice', images: [photoB()] }))).message).toMatch(/\(U\+200B\) at position 3/);
  expect(await caught(() => people.rename({ person: { name: 'Zo\u00eb' }, to: 'Zo\u202Ee' }))).toMatchObject({ field: 'to' });
  expect(await caught(() => people.importLabels({ [person.faces[0].face_id]: 'B\u2069ob' }))).toMatchObject({ field: `labels.${person.faces[0].face_id}` });
  expect(h.requests()).toBe(before);
  // A store written before the rule still loads: its people are not lost over a name.
  const old = new MemoryPeopleStore();
  await old.update(() => ({ kind: 'vision-streaming-people', version: 1, collectionId, people: [{ person_id: 'p_old', name: 'Old\u200Bname', faces: [], not_faces: [] }] }));
  expect((await directory(old).list()).people.map((p) => p.name)).toEqual(['Old\u200Bname']);
}, 60_000);

describe('with 500 ms of service latency (the sandbox fault)', () => {
  let dir: string;
  let ids: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'people-race-'));
    ids = (await h.client.createCollection()).collectionId;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  // Two directories on two stores of one file: what two processes of the command line are.
  const twoWriters = () => {
    const file = path.join(dir, 'people.json');
    const key = Buffer.from('race key');
    const open = () => new PeopleDirectory({ collectionId: ids, store: new FilePeopleStore(file, { collectionId: ids, key }), vision: h.client });
    return [open(), open()] as const;
  };
  const recorded = async (people: PeopleDirectory) => new Set((await people.list()).people.flatMap((p) => p.face_ids));
  const faces = async () => (await h.client.listFaces(ids)).map((f) => f.faceId);

  test('forget of a person with 4 faces and add-face to them 0.3 s later leave no face the directory does not know', async () => {
    const [one, two] = twoWriters();
    await one.addPerson({ name: 'Victim', images: [photoA(), photoA2(), photoB(), photoB2()] });
    h.sandbox.setFaults({ '*': { latencyMs: 500 } });
    const forgetting = one.forget({ person: { name: 'Victim' } });
    await sleep(300);
    const [forgot, added] = await Promise.allSettled([forgetting, two.addFace({ person: { name: 'Victim' }, image: photoA() })]);
    h.sandbox.setFaults({});
    expect(forgot.status).toBe('fulfilled');
    const receipt = (forgot as PromiseFulfilledResult<Awaited<typeof forgetting>>).value;
    // Either the face joined the person in time and forget took it too, or add-face found nobody and took it back.
    if (added.status === 'fulfilled') expect(receipt.removed_faces).toContain(added.value.result.status === 'added' && added.value.result.face_id);
    else expect(added.reason).toMatchObject({ code: 'invalid_input', field: 'person' });
    expect(receipt.left).toBeUndefined();
    const known = await recorded(one);
    expect((await faces()).filter((id) => !known.has(id))).toEqual([]);
    expect((await one.list()).people).toEqual([]);
  }, 60_000);

  test('an add-face that ends after forget took the person finds nobody and takes its face back out', async () => {
    const [one, two] = twoWriters();
    await one.addPerson({ name: 'Quick', images: [photoA()] });
    h.sandbox.setFaults({ '*': { latencyMs: 500 } });
    const adding = two.addFace({ person: { name: 'Quick' }, image: photoB() });
    await sleep(100);
    const receipt = await one.forget({ person: { name: 'Quick' } });
    expect(await caught(() => adding)).toMatchObject({ code: 'invalid_input', field: 'person' });
    h.sandbox.setFaults({});
    expect(receipt.left).toBeUndefined();
    expect(await faces()).toEqual([]);
  }, 60_000);
});

test('check lists faces no person, not-face or visitor records, and with remove takes them out', async () => {
  const ids = (await h.client.createCollection()).collectionId;
  const visitors = new MemoryVisitorStore();
  const people = new PeopleDirectory({ collectionId: ids, store: new MemoryPeopleStore(), vision: h.client, visitors });
  const { person } = await people.addPerson({ name: 'Known', images: [photoA()] });
  const not = (await people.notThisPerson({ person: { name: 'Known' }, image: photoB() })).result as { face_id: string };
  const stored = (await h.client.addFace(ids, photoB2())).faceId;
  const stamp = new Date().toISOString();
  visitors.save({ kind: 'vision-streaming-visitors', version: 1, collectionId: ids, visitors: [{ visitorId: stored, firstSeen: stamp, lastSeen: stamp, visits: 1 }] });
  const elsewhere = (await h.client.addFace(ids, photoA2())).faceId;
  const orphan = (await h.client.addFace(ids, photoA())).faceId;

  expect(await people.check({ visitorFaceIds: [elsewhere] })).toEqual({ collection_id: ids, faces_in_collection: 5, orphans: [{ face_id: orphan }], removed: [] });
  expect(await people.check()).toMatchObject({ orphans: expect.arrayContaining([{ face_id: orphan }, { face_id: elsewhere }]) });
  expect(await people.check({ remove: true, visitorFaceIds: new Set([elsewhere]) })).toMatchObject({ orphans: [{ face_id: orphan }], removed: [orphan] });
  expect((await h.client.listFaces(ids)).map((f) => f.faceId).sort()).toEqual([person.faces[0].face_id, not.face_id, stored, elsewhere].sort());
  expect(await people.check({ visitorFaceIds: [elsewhere] })).toMatchObject({ orphans: [], removed: [] });
  expect(await caught(() => people.check({ remove: 'yes' as unknown as boolean }))).toMatchObject({ field: 'remove' });
  expect(await caught(() => people.check({ visitorFaceIds: ['../x'] }))).toMatchObject({ field: 'visitorFaceIds' });
}, 60_000);

describe('a full collection', () => {
  let small: Harness;
  beforeAll(async () => {
    small = await startHarness({ eagerModel: true, facesPerCollection: 2 });
  }, 120_000);
  afterAll(() => small.stop());

  test('is a clear error naming the limit and what fills it, and leaves no entry', async () => {
    const id = (await small.client.createCollection()).collectionId;
    const people = new PeopleDirectory({ collectionId: id, store: new MemoryPeopleStore(), vision: small.client });
    await people.addPerson({ name: 'First', images: [photoA()] });
    await small.client.addFace(id, photoB());
    const err = await caught(() => people.addPerson({ name: 'Second', images: [photoA2()] }));
    expect(err).toMatchObject({ code: 'people_collection_full' });
    expect(err.message).toMatch(/1000 faces/);
    expect(err.message).toMatch(/people's faces 1, not-faces 0, remembered visitors 0, other faces 1/);
    expect((await people.list()).people.map((p) => p.name)).toEqual(['First']);
  }, 60_000);
});
