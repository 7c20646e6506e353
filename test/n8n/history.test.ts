import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { acquireHistory, type HistoryLease } from '../../shared/history/leases';
import type { HistoryStore, VisitPatch } from '../../shared/history/types';
import { VisionClient } from '../../shared/vision';
import { astronautFaceOfSize, mirrorJpeg } from '../support/images';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres';
import { CredentialStore } from './support/credentials-helper';
import { startDataTables, type DataTables } from './support/data-tables';
import { registerN8nApiCredential } from './support/n8n-api-credential';
import { cleanUpEngine, Engine, loadPackage, readBinary, type LoadedPackage, type NodeSpec, type SourceItem } from './support/engine';

// Visual Recognition > History run by n8n's own engine on this n8n's SQLite history (the file in
// N8N_USER_FOLDER's .n8n the Face Match Trigger with Keep History writes): Search as an agent would
// ask it ("was the courier here today?"), Get with the media as binary data, Delete, a bad range
// refused naming the parameter; Search By Face through the collection and the people table, and
// Person > Forget erasing the person's visits; and the history on a real PostgreSQL through the
// Vision Streaming History credential (skipped, saying why, where the server is missing).

const SECRET = 'history-test-secret';
const API_KEY = 'n8n-api-key-history-test';
const FACE = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 4, 5, 6, 0xff, 0xd9]);
let sandbox: RunningSandbox;
let tables: DataTables;
let vision: VisionClient;
let pkg: LoadedPackage;
let VR: string;
let lease: HistoryLease;
let store: HistoryStore;

beforeAll(async () => {
  pkg = await loadPackage();
  registerN8nApiCredential(pkg);
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET, collectionLimit: 5 });
  tables = await startDataTables({ apiKey: API_KEY });
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET });
  VR = `${pkg.packageName}.visualRecognition`;
  // The same file the node opens (n8n's user folder of this test, set before n8n-core loaded).
  lease = acquireHistory({ location: path.join(process.env.N8N_USER_FOLDER!, '.n8n', 'vision-streaming', 'history.sqlite'), makeFolder: true });
  store = await lease.store();
}, 180_000);

afterAll(async () => {
  await lease?.release();
  await vision?.close();
  await tables?.stop();
  await sandbox?.stop();
  cleanUpEngine();
});

function engine(): Engine {
  const credentials = new CredentialStore();
  credentials.set('cred', { clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  credentials.set('n8n', { apiKey: API_KEY, baseUrl: tables.server.url });
  return new Engine(pkg, credentials);
}

const CREDENTIALS = () => ({ [pkg.credentialType]: { id: 'cred', name: 'Sandbox' }, n8nApi: { id: 'n8n', name: 'n8n' } });

/** A Visual Recognition node; History without Search By Face needs only the service's credential (`n8nApi` false). */
function node(name: string, resource: string, parameters: NodeSpec['parameters'], n8nApi = true): NodeSpec {
  const credentials = n8nApi ? CREDENTIALS() : { [pkg.credentialType]: { id: 'cred', name: 'Sandbox' } };
  return { name, type: VR, typeVersion: 2, credentials, parameters: { resource, ...parameters } };
}

async function run(nodes: NodeSpec[], items: SourceItem[] = [{ json: {} }]): Promise<(node: string) => INodeExecutionData[]> {
  const result = await engine().runChain(items, nodes);
  if (result.error) throw result.error;
  return (n) => result.output(n);
}

/** A visit of two minutes at `arrived_at`. */
function visit(id: string, over: Partial<VisitPatch>): VisitPatch {
  const arrived = over.arrived_at ?? new Date().toISOString();
  return { visit_id: id, kind: 'person', room_id: 'room-1', stream_id: 'door', arrived_at: arrived, left_at: new Date(Date.parse(arrived) + 120_000).toISOString(), duration_s: 120, ...over };
}

test('Search answers "was the courier here today?", Get gives the media as binary data, Delete removes a visit, a bad range names its parameter', async () => {
  const today = new Date();
  const aWeekAgo = new Date(today.getTime() - 7 * 86_400_000).toISOString();
  await store.writeVisit(visit('c-old', { person_id: 'p_11111111-1111-4111-8111-111111111111', name: 'Courier', arrived_at: aWeekAgo }));
  await store.writeVisit(visit('c-now', { person_id: 'p_11111111-1111-4111-8111-111111111111', name: 'Courier', arrived_at: new Date(today.getTime() - 60_000).toISOString() }));
  await store.writeVisit(visit('x-now', { kind: 'stranger', arrived_at: new Date(today.getTime() - 30_000).toISOString() }));
  const face = await store.putMedia('c-now', 'face', FACE, 'image/jpeg');

  const out = await run([
    node('Was the courier here today', 'history', { operation: 'search', person: 'courier', since: 'today', includeMedia: true }, false),
    node('Everyone this week', 'history', { operation: 'search', since: '1w', limit: 2 }, false),
    node('Get', 'history', { operation: 'get', visitId: 'c-now', includeMedia: true }, false),
    node('Delete', 'history', { operation: 'delete', visitId: 'x-now' }, false),
  ]);
  const [courier] = out('Was the courier here today');
  expect(courier.json).toMatchObject({ count: 1, visits: [{ visit_id: 'c-now', name: 'Courier', face_path: store.mediaPath(face), face_binary: 'face_0', clip_path: null }] });
  expect((await readBinary(courier.binary!.face_0 as never)).equals(FACE)).toBe(true);
  const [week] = out('Everyone this week');
  expect((week.json.visits as { visit_id: string }[]).map((v) => v.visit_id)).toEqual(['x-now', 'c-now']);
  expect(typeof week.json.next).toBe('string');
  const [got] = out('Get');
  expect(got.json).toMatchObject({ visit_id: 'c-now', face_binary: 'face' });
  expect((await readBinary(got.binary!.face as never)).equals(FACE)).toBe(true);
  expect(out('Delete')[0].json).toEqual({ visit_id: 'x-now', removed_visits: 1, removed_media: 0 });
  expect(await store.get('x-now')).toBeUndefined();

  const bad = await engine().runChain([{ json: {} }], [node('Bad', 'history', { operation: 'search', since: '2026-11-26', until: '2026-11-25' })]);
  expect(bad.error).toEqual(expect.objectContaining({ name: 'NodeOperationError', description: expect.stringContaining('"Until"') }));
  const missing = await engine().runChain([{ json: {} }], [node('Missing', 'history', { operation: 'get', visitId: 'nope' })]);
  expect(missing.error).toEqual(expect.objectContaining({ name: 'NodeOperationError', description: expect.stringContaining('"Visit ID"') }));
}, 120_000);

test("Search By Face and by Person with the people table find every visit of the person; Person > Forget erases them from the history", async () => {
  const { collectionId } = await vision.createCollection();
  const tableId = tables.create('People');
  const where = { collectionId: { __rl: true, mode: 'id', value: collectionId }, peopleTable: { __rl: true, mode: 'list', value: tableId } };
  const added = await run(
    [node('Add', 'person', { operation: 'add', ...where, name: 'Alice', photoInput: 'binary', photoBinaryProperty: 'photo' })],
    [{ binary: { photo: { data: astronautFaceOfSize(200), fileName: 'a.jpg', mimeType: 'image/jpeg' } } }],
  );
  const alice = added('Add')[0].json.person as { person_id: string; faces: { face_id: string }[] };
  const personId = alice.person_id;
  const faceId = alice.faces[0].face_id;
  await store.writeVisit(visit('a1', { person_id: personId, name: 'Alice' }));
  await store.putMedia('a1', 'snapshot', FACE, 'image/jpeg');
  // Before she was named, as the stranger her face was; and a trigger without people, under her face alone.
  await store.writeVisit(visit('a0', { kind: 'visitor', visitor_id: faceId, face_id: faceId, arrived_at: new Date(Date.now() - 3_600_000).toISOString() }));
  await store.writeVisit(visit('a-face', { face_id: faceId, arrived_at: new Date(Date.now() - 7_200_000).toISOString() }));
  const all = [{ visit_id: 'a1' }, { visit_id: 'a0' }, { visit_id: 'a-face' }];

  const found = await run(
    [node('By face', 'history', { operation: 'search', searchByFace: true, faceBinaryProperty: 'face', ...where, usePeopleTable: true })],
    [{ binary: { face: { data: mirrorJpeg(astronautFaceOfSize(220)), fileName: 'face.jpg', mimeType: 'image/jpeg' } } }],
  );
  expect(found('By face')[0].json).toMatchObject({ count: 3, identity: { kind: 'person', person_id: personId, name: 'Alice' }, visits: all });
  const byPerson = await run([node('By person', 'history', { operation: 'search', person: 'alice', ...where, usePeopleTable: true })]);
  expect(byPerson('By person')[0].json).toMatchObject({ count: 3, visits: all });

  const forgot = await run([node('Forget', 'person', { operation: 'forget', ...where, person: { __rl: true, mode: 'name', value: 'Alice' } })]);
  expect(forgot('Forget')[0].json).toMatchObject({ person_id: personId, removed_visits: 3, removed_media: 1 });
  for (const id of ['a1', 'a0', 'a-face']) expect(await store.get(id)).toBeUndefined();
}, 120_000);

const describePostgres = postgresSkipReason ? describe.skip : describe;
if (postgresSkipReason) console.log(`History on PostgreSQL through n8n skipped: ${postgresSkipReason}`);

describePostgres('History Store: PostgreSQL (Credential)', () => {
  let server: TestPostgres;
  let media: string;
  beforeAll(async () => {
    server = await startPostgres();
    media = await mkdtemp(path.join(os.tmpdir(), 'n8n-history-media-'));
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (media) await rm(media, { recursive: true, force: true });
  });

  test('Search and Delete reach the database and the shared media folder of the credential; the credential test opens it, and names a wrong password without showing it', async () => {
    const shared = acquireHistory({ location: server.url, media });
    try {
      const pg = await shared.store();
      await pg.writeVisit(visit('pg-1', { person_id: 'p_33333333-3333-4333-8333-333333333333', name: 'Courier' }));
      await pg.putMedia('pg-1', 'face', FACE, 'image/jpeg');
      const e = engine();
      e.store.set('hist', { url: server.url, mediaFolder: media });
      const onPostgres = (name: string, parameters: NodeSpec['parameters']): NodeSpec => {
        const n = node(name, 'history', { historyStore: 'postgres', ...parameters }, false);
        return { ...n, credentials: { ...n.credentials, visionStreamingHistory: { id: 'hist', name: 'History' } } };
      };
      const result = await e.runChain([{ json: {} }], [onPostgres('Courier today', { operation: 'search', person: 'Courier', since: 'today', includeMedia: true }), onPostgres('Delete', { operation: 'delete', visitId: 'pg-1' })]);
      if (result.error) throw result.error;
      const [found] = result.output('Courier today');
      expect(found.json).toMatchObject({ count: 1, visits: [{ visit_id: 'pg-1', name: 'Courier', face_binary: 'face_0' }] });
      expect((await readBinary(found.binary!.face_0 as never)).equals(FACE)).toBe(true);
      expect(result.output('Delete')[0].json).toEqual({ visit_id: 'pg-1', removed_visits: 1, removed_media: 1 });
      expect(await pg.get('pg-1')).toBeUndefined();
    } finally {
      await shared.release();
    }
    const type = pkg.nodeTypes.getByNameAndVersion(VR, 2);
    const test = (type.methods as { credentialTest: Record<string, (this: unknown, c: unknown) => Promise<{ status: string; message: string }>> }).credentialTest.testHistoryCredential;
    expect(await test.call({}, { id: 'hist', name: 'History', type: 'visionStreamingHistory', data: { url: server.url, mediaFolder: media } })).toMatchObject({ status: 'OK' });
    const wrong = server.url.replace(server.password, 'not-the-password');
    const refused = await test.call({}, { id: 'hist', name: 'History', type: 'visionStreamingHistory', data: { url: wrong, mediaFolder: media } });
    expect(refused.status).toBe('Error');
    expect(refused.message).not.toContain('not-the-password');
  }, 120_000);
});
