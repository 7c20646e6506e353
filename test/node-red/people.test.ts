import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Node } from 'node-red';
import configNode from '../../node-red/config';
import peopleNode from '../../node-red/people';
import watchNode from '../../node-red/watch';
import type { RunningSandbox } from '../../sandbox';
import { FilePeopleStore, peopleKey } from '../../shared/people/file-store';
import { readPeople, type PeopleList, type Person } from '../../shared/people';
import { VisionClient } from '../../shared/vision';
import type { VisitorDocument } from '../../shared/watch';
import { astronautFaceOfSize, faceApiSample, faceOfSize, mirrorJpeg, type Rect } from '../support/images';
import { faceOfB } from '../watch/support/clip';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, sandboxForTests, useNodeRedHelper } from './support/runtime';

// The people node in Node-RED's runtime against the sandbox: the config node keeps each
// collection's people in a file of Node-RED's user directory; the operations, the editor's list of
// people, and a visitor a watch node remembers named as a person.

const SECRET = 'sandbox-secret';

let sandbox: RunningSandbox;
let vision: VisionClient;
let userDir: string;
let bFace: Rect;
let collectionId: string;
const photoA = () => astronautFaceOfSize(200);
const photoA2 = () => mirrorJpeg(astronautFaceOfSize(220));
const photoB = () => faceOfSize(faceApiSample(1), bFace, 200);

beforeAll(async () => {
  sandbox = await sandboxForTests();
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'nr-people-'));
  helper.settings({ userDir });
  bFace = await faceOfB((jpeg) => vision.detectFaces(jpeg));
}, 120_000);
afterAll(async () => {
  await vision?.close();
  await sandbox?.stop();
  if (userDir) await rm(userDir, { recursive: true, force: true });
});
beforeEach(async () => {
  collectionId = (await vision.createCollection()).collectionId;
});
afterEach(() => sandbox.reset());
useNodeRedHelper();

function flow(people: Record<string, unknown> = {}): object[] {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'n', z: 'f1', type: 'vision-streaming-people', service: CONFIG_ID, collectionId, wires: [['out']], ...people },
    { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, collectionId, autoStart: false, wires: [[], [], [], []] },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
}

async function load(people?: Record<string, unknown>): Promise<void> {
  await helper.load([configNode, peopleNode, watchNode], flow(people), configCredentials(sandbox, SECRET));
}

/** Runs one operation through the node and gives the message that came out. */
async function op(msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = nextMessage('out');
  inject('n', msg);
  return out;
}

/** The error a Catch node receives for one message. */
async function refused(msg: Record<string, unknown>): Promise<{ code: string; message: string; cause: Record<string, unknown> }> {
  const caught = nextMessage('caught');
  inject('n', msg);
  return (await caught).error as { code: string; message: string; cause: Record<string, unknown> };
}

const faceIds = async () => new Set((await vision.listFaces(collectionId)).map((f) => f.faceId));
const peopleFile = () => path.join(userDir, 'vision-streaming', `people-${collectionId}.json`);

it('adds a person from two photos, renames, marks a face not them, lists; forget leaves none of their faces in the collection', async () => {
  await load();
  const added = await op({ operation: 'add', name: 'Astronaut', payload: [photoA(), photoA2()] });
  const person = (added.payload as { person: Person }).person;
  expect(person.faces).toHaveLength(2);
  expect(added).toMatchObject({ person_id: person.person_id, name: 'Astronaut', collectionId });
  const enrolled = person.faces.map((f) => f.face_id);
  expect([...(await faceIds())].sort()).toEqual([...enrolled].sort());

  const renamed = await op({ operation: 'rename', person_id: person.person_id, to: 'Commander' });
  expect(renamed.payload).toMatchObject({ person_id: person.person_id, name: 'Commander' });

  const marked = await op({ operation: 'not', name: 'commander', payload: photoB() });
  const notFace = (marked.payload as { person: Person }).person.not_faces[0].face_id;
  expect((await faceIds()).has(notFace)).toBe(true);

  const list = (await op({ operation: 'list' })).payload as PeopleList;
  expect(list.people).toEqual([expect.objectContaining({ person_id: person.person_id, name: 'Commander', faces: 2, not_faces: 1 })]);
  expect(list).toMatchObject({ collection_id: collectionId, faces_in_collection: 3 });

  const receipt = (await op({ operation: 'forget', name: 'Commander' })).payload as { removed_faces: string[]; removed_not_faces: string[] };
  expect(receipt.removed_faces.sort()).toEqual([...enrolled].sort());
  expect(receipt.removed_not_faces).toEqual([notFace]);
  const left = await faceIds();
  for (const id of [...enrolled, notFace]) expect(left.has(id)).toBe(false);
  expect(((await op({ operation: 'list' })).payload as PeopleList).people).toEqual([]);
}, 120_000);

it("keeps the people in the user directory: a file of mode 0600, sealed, that holds no secret; the node's settings give the operation and the person", async () => {
  await load({ operation: 'add', person: 'Alice' });
  await op({ payload: photoA() });
  const file = peopleFile();
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
  const text = await readFile(file, 'utf8');
  expect(JSON.parse(text)).toMatchObject({ kind: 'vision-streaming-people', collectionId, people: [{ name: 'Alice' }], seal: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(text).not.toContain(SECRET);
  // Sealed with a key of the configuration's client secret: another key does not open it.
  const otherKey = new FilePeopleStore(file, { collectionId, key: peopleKey({ clientId: sandbox.clientId, clientSecret: 'another' }) });
  expect(() => readPeople(JSON.parse(text), collectionId, otherKey)).toThrow(expect.objectContaining({ code: 'people_store_untrusted' }));
}, 60_000);

it("the editor's list of people: by name, filtered, from the deployed configuration's file, never a secret; a file sealed otherwise is refused", async () => {
  await load();
  await op({ operation: 'add', name: 'Zoe', payload: photoA() });
  await op({ operation: 'add', name: 'Bob', payload: photoB() });
  const all = await helper.request().get('/vision-streaming/people').query({ config: CONFIG_ID, collection: collectionId }).expect(200);
  expect((all.body as { name: string; value: string }[]).map((e) => [e.name, e.value])).toEqual([
    ['Bob', 'Bob'],
    ['Zoe', 'Zoe'],
  ]);
  expect(all.body[0].description).toMatch(/^1 face; p_[0-9a-f-]{36}$/);
  expect(JSON.stringify(all.body)).not.toContain(SECRET);
  const filtered = await helper.request().get('/vision-streaming/people').query({ config: CONFIG_ID, collection: collectionId, filter: 'zo' }).expect(200);
  expect((filtered.body as { value: string }[]).map((e) => e.value)).toEqual(['Zoe']);
  const other = (await vision.createCollection()).collectionId;
  expect((await helper.request().get('/vision-streaming/people').query({ config: CONFIG_ID, collection: other }).expect(200)).body).toEqual([]);

  const noCollection = await helper.request().get('/vision-streaming/people').query({ config: CONFIG_ID }).expect(400);
  expect(noCollection.body.error).toMatch(/collection is required/);
  const badCollection = await helper.request().get('/vision-streaming/people').query({ config: CONFIG_ID, collection: '../../etc' }).expect(400);
  expect(badCollection.body).toMatchObject({ field: 'collection' });
  await helper.request().get('/vision-streaming/people').query({ config: 'not-deployed', collection: collectionId }).expect(404);

  // The file rewritten under another key: refused, naming the file.
  const file = peopleFile();
  await new FilePeopleStore(file, { key: peopleKey({ clientId: sandbox.clientId, clientSecret: 'another' }) }).update((doc) => doc);
  const untrusted = await helper.request().get('/vision-streaming/people').query({ config: CONFIG_ID, collection: collectionId }).expect(409);
  expect(untrusted.body).toMatchObject({ code: 'people_store_untrusted', error: expect.stringContaining(file) });
  // And the people node's operations refuse it too, at the Catch node, naming the file; it is not written over.
  const before = await readFile(file, 'utf8');
  for (const msg of [{ operation: 'list' }, { operation: 'add', name: 'Eve', payload: photoA() }]) {
    const error = await refused(msg);
    expect(error).toMatchObject({ code: 'people_store_untrusted', message: expect.stringContaining(file) });
  }
  expect(await readFile(file, 'utf8')).toBe(before);
}, 60_000);

it("names a stranger a watch node remembers from its visitor_id: the face becomes the person's and leaves the watch node's visitors", async () => {
  await load();
  const visitorId = (await vision.addFace(collectionId, photoB())).faceId;
  const now = new Date().toISOString();
  const watch = helper.getNode('w') as Node;
  const visitors: VisitorDocument = { kind: 'vision-streaming-visitors', version: 1, collectionId, visitors: [{ visitorId, firstSeen: now, lastSeen: now, visits: 2 }] };
  watch.context().set('visitors', visitors);

  // As a change node makes it from an unknown event: the event stays in msg.payload.
  const added = await op({ operation: 'add', name: 'Stranger at the door', visitor_id: visitorId, payload: { event: 'unknown', visitor_id: visitorId, score: 0.3 } });
  expect((added.payload as { person: Person }).person.faces).toEqual([expect.objectContaining({ face_id: visitorId, from: 'visitor' })]);
  expect((watch.context().get('visitors') as VisitorDocument).visitors).toEqual([]);
  expect((await faceIds()).has(visitorId)).toBe(true);

  // Not a visitor any more: naming it again is refused.
  const again = await refused({ operation: 'add', name: 'Someone', visitor_id: visitorId });
  expect(again.cause).toMatchObject({ name: 'InputError', field: 'visitorId' });
}, 60_000);

it('bad input reaches the Catch node with the field it concerns, before anything is sent', async () => {
  await load();
  const before = sandbox.stats();
  const cases: [Record<string, unknown>, string][] = [
    [{ operation: 'delete-everyone' }, 'operation'],
    [{ operation: 'add', name: 'Alice' }, 'payload'],
    [{ operation: 'add', name: '  ', payload: photoA() }, 'name'],
    [{ operation: 'add', name: 'Alice', payload: { not: 'an image' } }, 'images'],
    [{ operation: 'rename', to: 'Bob' }, 'name'],
    [{ operation: 'add-face', name: 'Nobody', payload: photoA() }, 'person'],
    [{ operation: 'merge', name: 'Alice' }, 'to'],
    [{ operation: 'remove-face', face_id: '../x' }, 'faceId'],
    [{ operation: 'import-labels', payload: 'not json' }, 'labels'],
    [{ operation: 'list', collectionId: '../../etc' }, 'collectionId'],
  ];
  for (const [msg, field] of cases) {
    const error = await refused(msg);
    expect({ msg: msg.operation, code: error.code, field: error.cause.field }).toEqual({ msg: msg.operation, code: 'invalid_input', field });
    expect(error.cause.name).toBe('InputError');
  }
  expect(sandbox.stats()).toEqual(before);
}, 60_000);

it('an operation that is not a string (an object with its own toString) reaches the Catch node as invalid_input naming operation', async () => {
  await load();
  const before = sandbox.stats();
  for (const operation of [{ toString: 'list' }, { toString: () => 'list' }, ['list'], 42]) {
    const error = await refused({ operation });
    expect(error).toMatchObject({ code: 'invalid_input', cause: { name: 'InputError', field: 'operation' } });
  }
  expect(sandbox.stats()).toEqual(before);
}, 60_000);

it('check lists the faces of the collection nothing records (a watch node remembers its visitors) and with msg.remove takes them out', async () => {
  await load();
  const person = ((await op({ operation: 'add', name: 'Kept', payload: photoA() })).payload as { person: Person }).person;
  const orphan = (await vision.addFace(collectionId, photoA2())).faceId;
  const visitorId = (await vision.addFace(collectionId, photoB())).faceId;
  const now = new Date().toISOString();
  (helper.getNode('w') as Node).context().set('visitors', { kind: 'vision-streaming-visitors', version: 1, collectionId, visitors: [{ visitorId, firstSeen: now, lastSeen: now, visits: 1 }] } satisfies VisitorDocument);

  const listed = await op({ operation: 'check' });
  expect(listed.payload).toEqual({ collection_id: collectionId, faces_in_collection: 3, orphans: [{ face_id: orphan }], removed: [] });
  expect((await faceIds()).has(orphan)).toBe(true);
  const removed = await op({ operation: 'check', remove: true });
  expect(removed.payload).toMatchObject({ orphans: [{ face_id: orphan }], removed: [orphan] });
  expect([...(await faceIds())].sort()).toEqual([person.faces[0].face_id, visitorId].sort());
  expect((await refused({ operation: 'check', remove: 'yes' })).cause).toMatchObject({ field: 'remove' });
}, 60_000);
