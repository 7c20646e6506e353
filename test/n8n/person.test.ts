import type { INode, INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { VisionClient } from '../../shared/vision';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server';
import { astronautFaceOfSize, faceApiSample, faceOfSize, mirrorJpeg, rectOf } from '../support/images';
import { CredentialStore } from './support/credentials-helper';
import { startDataTables, type DataTables } from './support/data-tables';
import { registerN8nApiCredential } from './support/n8n-api-credential';
import { cleanUpEngine, Engine, loadPackage, type LoadedPackage, type NodeSpec, type SourceItem } from './support/engine';

// Visual Recognition's Person resource run by n8n's own engine: the faces in a sandbox collection,
// the names in a data table of a stand-in of n8n's public API, reached with n8n's own API credential.

const SECRET = 'person-test-secret';
const API_KEY = 'n8n-api-key-person-test';
let sandbox: RunningSandbox;
let tables: DataTables;
let fixtures: FixtureServer;
let vision: VisionClient;
let pkg: LoadedPackage;
let VR: string;
const img: Record<'a' | 'a2' | 'b' | 'b2', Buffer> = {} as never;

beforeAll(async () => {
  // Built first: a build of a minute would leave the test client's pooled connection idle long enough for the sandbox to close it.
  pkg = await loadPackage();
  registerN8nApiCredential(pkg);
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET, eagerModel: true, collectionLimit: 5 });
  tables = await startDataTables({ apiKey: API_KEY });
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET });
  const group = faceApiSample(1);
  const bFace = rectOf((await vision.detectFaces(group))[0].location);
  img.a = astronautFaceOfSize(200);
  img.a2 = mirrorJpeg(astronautFaceOfSize(220));
  img.b = faceOfSize(group, bFace, 200);
  img.b2 = mirrorJpeg(faceOfSize(group, bFace, 230));
  fixtures = await startFixtureServer({ '/a2.jpg': { body: img.a2, contentType: 'image/jpeg' } });
  VR = `${pkg.packageName}.visualRecognition`;
}, 180_000);

afterAll(async () => {
  await vision?.close();
  await fixtures?.stop();
  await tables?.stop();
  await sandbox?.stop();
  cleanUpEngine();
});

function engine(apiKey = API_KEY): Engine {
  const store = new CredentialStore();
  store.set('cred', { clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  // The Base URL as users copy it from n8n, with or without /api/v1.
  store.set('n8n', { apiKey, baseUrl: tables.server.url });
  return new Engine(pkg, store);
}

const CREDENTIALS = () => ({ [pkg.credentialType]: { id: 'cred', name: 'Sandbox' }, n8nApi: { id: 'n8n', name: 'n8n' } });

/** A Person node on `collectionId` and `tableId` (picked from the list, as in the editor). */
function person(name: string, collectionId: string, tableId: string, parameters: NodeSpec['parameters']): NodeSpec {
  return {
    name,
    type: VR,
    typeVersion: 2,
    credentials: CREDENTIALS(),
    parameters: { resource: 'person', collectionId: { __rl: true, mode: 'id', value: collectionId }, peopleTable: { __rl: true, mode: 'list', value: tableId }, ...parameters },
  };
}

const photos = (files: Record<string, Buffer>): SourceItem['binary'] =>
  Object.fromEntries(Object.entries(files).map(([k, data]) => [k, { data, fileName: `${k}.jpg`, mimeType: 'image/jpeg' }]));

async function run(nodes: NodeSpec[], items: SourceItem[] = [{ json: {} }], e = engine()): Promise<(node: string) => Record<string, unknown>[]> {
  const result = await e.runChain(items, nodes);
  if (result.error) throw result.error;
  return (node) => result.output(node).map((i: INodeExecutionData) => i.json as Record<string, unknown>);
}

/** The table's rows of people: every row but the collection's version row. */
const peopleRows = (tableId: string) => tables.rows(tableId).filter((r) => r.kind !== 'version');

async function fresh(): Promise<{ collectionId: string; tableId: string }> {
  return { collectionId: (await vision.createCollection()).collectionId, tableId: tables.create('People') };
}

test('every Person operation through the node: the faces in the collection, the names in the data table', async () => {
  const { collectionId, tableId } = await fresh();
  const p = (name: string, parameters: NodeSpec['parameters']) => person(name, collectionId, tableId, parameters);
  const out = await run(
    [
      p('Add', { operation: 'add', name: 'Eileen', photoBinaryProperty: 'data, second' }),
      p('Add B', { operation: 'add', name: 'Bea', photoBinaryProperty: 'other' }),
      p('Add Face', { operation: 'addFace', person: 'Eileen', photoInput: 'url', photoUrl: fixtures.urlOf('/a2.jpg') }),
      p('Not This', { operation: 'notThisPerson', person: 'Eileen', photoBinaryProperty: 'notHer' }),
      p('Rename', { operation: 'rename', person: 'Bea', newName: 'Beatrice' }),
      p('List', { operation: 'list' }),
    ],
    [{ binary: photos({ data: img.a, second: mirrorJpeg(img.a), other: img.b, notHer: img.b2 }) }],
  );
  const added = out('Add')[0] as { person: { person_id: string; name: string; faces: { face_id: string }[] }; results: { status: string }[] };
  expect(added.person).toMatchObject({ name: 'Eileen', person_id: expect.stringMatching(/^p_/) });
  expect(added.results.map((r) => r.status)).toEqual(['added', 'added']);
  expect(out('Add Face')[0]).toMatchObject({ person: { name: 'Eileen' }, result: { status: 'added', face_id: expect.any(String) } });
  expect(out('Not This')[0]).toMatchObject({ person: { name: 'Eileen', not_faces: [expect.objectContaining({ from: 'event' })] } });
  expect(out('Rename')[0]).toMatchObject({ name: 'Beatrice' });
  const list = out('List')[0] as { people: { name: string; faces: number; not_faces: number }[]; faces_in_collection: number };
  expect(list.people.map((x) => [x.name, x.faces, x.not_faces])).toEqual([
    ['Eileen', 3, 1],
    ['Beatrice', 1, 0],
  ]);
  expect(list.faces_in_collection).toBe(5);
  // The names are in the table, one row a face, where users see and edit them.
  const rows = peopleRows(tableId);
  expect(rows.map((r) => [r.name, r.kind])).toEqual([
    ['Eileen', 'face'],
    ['Eileen', 'face'],
    ['Beatrice', 'face'],
    ['Eileen', 'face'],
    ['Eileen', 'not'],
  ]);
  expect(new Set(rows.map((r) => r.collection_id))).toEqual(new Set([collectionId]));

  // A rename on the Data Tables page is what the node sees next.
  tables.edit(tableId, (r) => r.name === 'Beatrice', { name: 'Bea M.' });
  const beaFace = rows.find((r) => r.name === 'Beatrice')!.face_id as string;
  const eileenFace = added.person.faces[0].face_id;
  const more = await run([
    p('Merge', { operation: 'merge', person: 'Bea M.', into: added.person.person_id }),
    p('Remove Face', { operation: 'removeFace', faceId: eileenFace }),
    p('Forget', { operation: 'forget', person: 'Eileen' }),
    p('List', { operation: 'list' }),
  ]);
  expect(more('Merge')[0]).toMatchObject({ merged: { name: 'Bea M.' }, person: { name: 'Eileen' } });
  expect(more('Remove Face')[0]).toEqual({ person_id: added.person.person_id, name: 'Eileen', face_id: eileenFace, removed: 'face' });
  expect(more('Forget')[0]).toMatchObject({ name: 'Eileen', removed_not_faces: [expect.any(String)] });
  // Bea's face was Eileen's after the merge: it left the collection with her.
  expect((more('Forget')[0].removed_faces as string[]).sort()).toEqual([beaFace, ...added.person.faces.slice(1).map((f) => f.face_id), (out('Add Face')[0].result as { face_id: string }).face_id].sort());
  expect(more('List')[0]).toMatchObject({ people: [], faces_in_collection: 0 });
  expect(peopleRows(tableId)).toEqual([]);
}, 120_000);

test('Import Labels makes people of faces of the collection; bad input names the parameter', async () => {
  const { collectionId, tableId } = await fresh();
  const f1 = (await vision.addFace(collectionId, img.a)).faceId;
  const f2 = (await vision.addFace(collectionId, img.a2)).faceId;
  const out = await run([person('Import', collectionId, tableId, { operation: 'importLabels', labels: { label: [{ id: f1, name: 'Eileen' }, { id: f2, name: 'eileen' }] } })]);
  expect(out('Import')[0]).toEqual({ people: [{ person_id: expect.stringMatching(/^p_/), name: 'Eileen', created: true, added_faces: [f1, f2] }] });
  expect(peopleRows(tableId).map((r) => [r.name, r.face_id, r.from])).toEqual([
    ['Eileen', f1, 'labels'],
    ['Eileen', f2, 'labels'],
  ]);

  const e = engine();
  const bad = await e.runChain([{ json: {} }], [person('Rename', collectionId, tableId, { operation: 'rename', person: 'Eileen', newName: '  ' })]);
  expect(bad.error?.message).toMatch(/to is empty: a person needs a name/);
  expect((bad.error as { description?: string }).description).toMatch(/"New Name"/);
  const nobody = await e.runChain([{ binary: photos({ data: img.b }) }], [person('Add Face', collectionId, tableId, { operation: 'addFace', person: 'Nobody', photoBinaryProperty: 'data' })]);
  expect(nobody.error?.message).toMatch(/no person with name "Nobody"/);
  expect((nobody.error as { description?: string }).description).toMatch(/"Person"/);
  expect((await vision.listFaces(collectionId)).map((f) => f.faceId).sort()).toEqual([f1, f2].sort());

  // A remembered visitor (a face the trigger enrolled) becomes a person without another photo.
  const visitor = (await vision.addFace(collectionId, img.b)).faceId;
  const made = await run([person('Add', collectionId, tableId, { operation: 'add', name: 'Bea', photoInput: 'visitor', visitorId: visitor })]);
  expect(made('Add')[0]).toMatchObject({ person: { name: 'Bea', faces: [{ face_id: visitor, from: 'visitor' }] }, results: [] });
  const gone = await e.runChain([{ json: {} }], [person('Add Face', collectionId, tableId, { operation: 'addFace', person: 'Bea', photoInput: 'visitor', visitorId: 'not-in-the-collection' })]);
  expect(gone.error?.message).toMatch(/visitor not-in-the-collection is not in the visitor store/);
  expect((gone.error as { description?: string }).description).toMatch(/"Visitor ID"/);
});

test('the data tables are listed for the People Table locator; a refused API key fails the run saying what to check, without the key', async () => {
  const { collectionId, tableId } = await fresh();
  const node: INode = { id: 'n', name: 'Node', type: VR, typeVersion: 2, position: [0, 0], parameters: { resource: 'person' }, credentials: CREDENTIALS() };
  const listed = await engine().listSearch(node, 'searchDataTables');
  expect(listed.results).toContainEqual({ name: 'People', value: tableId, description: expect.stringContaining(tableId) });
  const trigger: INode = { ...node, type: `${pkg.packageName}.faceMatchTrigger`, parameters: { usePeopleTable: true } };
  expect((await engine().listSearch(trigger, 'searchDataTables')).results.map((r) => r.value)).toContain(tableId);

  const wrong = 'wrong-api-key-5678';
  const refused = await engine(wrong).runChain([{ json: {} }], [person('List', collectionId, tableId, { operation: 'list' })]);
  expect(refused.error?.message).toMatch(/HTTP 401/);
  expect(`${refused.error?.message} ${(refused.error as { description?: string }).description}`).toMatch(/n8n API credential/);
  expect(JSON.stringify(refused.run.data)).not.toContain(wrong);
  await expect(engine(wrong).listSearch(node, 'searchDataTables')).rejects.toThrow(/HTTP 401/);

  // Continue On Fail: the error is the item's, the run goes on.
  const kept = await engine(wrong).runChain([{ json: {} }], [{ ...person('List', collectionId, tableId, { operation: 'list' }), onError: 'continueRegularOutput' }]);
  expect(kept.error).toBeUndefined();
  expect(kept.output('List')[0].json).toMatchObject({ error: expect.stringMatching(/HTTP 401/) });
});

test('two Person Add of one name at once, reading the table at the same moment: one person, no face left behind', async () => {
  const { collectionId, tableId } = await fresh();
  const add = () => engine().runChain([{ binary: photos({ data: img.a }) }], [person('Add', collectionId, tableId, { operation: 'add', name: 'Alice', photoBinaryProperty: 'data' })]);
  // Every read of the table answered in pairs: both runs see the same rows, as two queue-mode workers can.
  tables.holdReads(2);
  let runs: Awaited<ReturnType<typeof add>>[];
  try {
    runs = await Promise.all([add(), add()]);
  } finally {
    tables.holdReads(0);
  }
  const failed = runs.filter((r) => r.error);
  expect(failed).toHaveLength(1);
  expect(failed[0].error?.message).toMatch(/Alice/);
  const rows = peopleRows(tableId);
  expect(rows.map((r) => r.name)).toEqual(['Alice']);
  // The loser's face left the collection again: the collection holds what the table records.
  expect((await vision.listFaces(collectionId)).map((f) => f.faceId)).toEqual(rows.map((r) => r.face_id));
}, 60_000);

test('the person by a resource locator, by name or by ID; a plain text person of an older workflow is read as before', async () => {
  const { collectionId, tableId } = await fresh();
  const p = (name: string, parameters: NodeSpec['parameters']) => person(name, collectionId, tableId, parameters);
  const byName = (value: string) => ({ __rl: true, mode: 'name', value });
  const byId = (value: string) => ({ __rl: true, mode: 'id', value });
  const made = await run([p('Add', { operation: 'add', name: 'p_looks-like-an-id', photoInput: 'none' }), p('Add B', { operation: 'add', name: 'Bea', photoInput: 'none' })]);
  const odd = (made('Add')[0].person as { person_id: string }).person_id;
  const bea = (made('Add B')[0].person as { person_id: string }).person_id;
  // By name, a name shaped like an ID is a name; by ID, an ID.
  const out = await run([
    p('Rename Odd', { operation: 'rename', person: byName('p_looks-like-an-id'), newName: 'Odd' }),
    p('Rename Bea', { operation: 'rename', person: byId(bea), newName: 'Beatrice' }),
    // Saved before the locator: plain text, an ID when it has the shape of one, else a name.
    p('Rename Old Text', { operation: 'rename', person: 'Beatrice', newName: 'Bea' }),
    p('Rename Old Id', { operation: 'rename', person: odd, newName: 'Oddly' }),
  ]);
  expect(out('Rename Odd')[0]).toMatchObject({ person_id: odd, name: 'Odd' });
  expect(out('Rename Bea')[0]).toMatchObject({ person_id: bea, name: 'Beatrice' });
  expect(out('Rename Old Text')[0]).toMatchObject({ person_id: bea, name: 'Bea' });
  expect(out('Rename Old Id')[0]).toMatchObject({ person_id: odd, name: 'Oddly' });
  const missing = await engine().runChain([{ json: {} }], [p('Forget', { operation: 'forget', person: byId('p_0f8fad5b-d9cb-469f-a165-70867728950e') })]);
  expect(missing.error).toBeUndefined();
  expect(missing.output('Forget')[0].json).toMatchObject({ already_forgotten: true });
});

test('every parameter of every Person operation has its label in errors: a bad Face ID and Collection ID name their parameters', async () => {
  const { tableId } = await fresh();
  const e = engine();
  const badFace = await e.runChain([{ json: {} }], [person('Remove Face', (await vision.createCollection()).collectionId, tableId, { operation: 'removeFace', faceId: 'not a face id!' })]);
  expect((badFace.error as { description?: string }).description).toMatch(/"Face ID"/);
  const badCollection = await e.runChain([{ json: {} }], [person('List', '={{ "not-a-uuid" }}', tableId, { operation: 'list' })]);
  expect((badCollection.error as { description?: string }).description).toMatch(/"Collection ID"/);
});

test('Person > Check lists the faces of the collection nothing records, counts the given visitor faces as recorded, and removes the rest when asked', async () => {
  const { collectionId, tableId } = await fresh();
  const p = (name: string, parameters: NodeSpec['parameters']) => person(name, collectionId, tableId, parameters);
  await run([p('Add', { operation: 'add', name: 'Eileen', photoBinaryProperty: 'data' })], [{ binary: photos({ data: img.a }) }]);
  // Two faces the table does not know: one a remembered visitor's, one left by a run that stopped half-way.
  const visitor = (await vision.addFace(collectionId, img.b)).faceId;
  const orphan = (await vision.addFace(collectionId, img.b2)).faceId;
  const listed = await run([p('Check', { operation: 'check', visitorFaceIds: visitor })]);
  expect(listed('Check')[0]).toMatchObject({ collection_id: collectionId, faces_in_collection: 3, orphans: [{ face_id: orphan }], removed: [] });
  const cleaned = await run([p('Check', { operation: 'check', remove: true, visitorFaceIds: visitor }), p('List', { operation: 'list' })]);
  expect(cleaned('Check')[0]).toMatchObject({ orphans: [{ face_id: orphan }], removed: [orphan] });
  expect((await vision.listFaces(collectionId)).map((f) => f.faceId).sort()).toEqual([visitor, ...peopleRows(tableId).map((r) => r.face_id as string)].sort());
}, 120_000);
