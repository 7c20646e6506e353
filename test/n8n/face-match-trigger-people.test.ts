import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { INode, INodeExecutionData, ITriggerResponse } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { PeopleDirectory } from '../../shared/people';
import { TablePeopleStore } from '../../shared/people/table-store';
import type { Publisher } from '../../shared/publish';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { astronautFaceOfSize, mirrorJpeg } from '../support/images';
import { encodeClip, faceOfB, loadPeople } from '../support/clip';
import { publishClip, waitFor } from '../watch/support/room';
import { CredentialStore } from './support/credentials-helper';
import { fetchTableRequest, startDataTables, type DataTables } from './support/data-tables';
import { registerN8nApiCredential } from './support/n8n-api-credential';
import { cleanUpEngine, Engine, loadPackage, type LoadedPackage } from './support/engine';

// The Face Match Trigger with a people table: activated by n8n-core, it names faces by the people of
// a data table (a stand-in of n8n's public API on 127.0.0.1) and follows changes of the table.

const SECRET = 'trigger-people-secret';
const API_KEY = 'n8n-api-key-trigger-test';
let sandbox: RunningSandbox;
let tables: DataTables;
let pkg: LoadedPackage;
let vision: VisionClient;
let streaming: StreamingClient;
let dir: string;
let clip: string;
let collectionId: string;
let tableId: string;
let eileen: { person_id: string; faces: string[] };

beforeAll(async () => {
  // Built first: a build of a minute would leave the test client's pooled connection idle long enough for the sandbox to close it.
  pkg = await loadPackage();
  registerN8nApiCredential(pkg);
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET, eagerModel: true, streaming: { countDelayMs: 0 } });
  tables = await startDataTables({ apiKey: API_KEY });
  const credentials = { authUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET };
  vision = new VisionClient({ ...credentials, visionUrl: sandbox.url });
  streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url });
  dir = await mkdtemp(path.join(os.tmpdir(), 'n8n-trigger-people-'));
  const people = loadPeople(await faceOfB((jpeg) => vision.detectFaces(jpeg)));
  collectionId = (await vision.createCollection()).collectionId;
  tableId = tables.create('People');
  // Two photos of one person, kept in the table the way the Person operations keep them.
  const store = new TablePeopleStore({ request: fetchTableRequest(tables.baseUrl, API_KEY), tableId, collectionId });
  const added = await new PeopleDirectory({ collectionId, store, vision }).addPerson({ name: 'Eileen', images: [astronautFaceOfSize(200), mirrorJpeg(astronautFaceOfSize(220))] });
  eileen = { person_id: added.person.person_id, faces: added.person.faces.map((f) => f.face_id) };
  // A (the person) 3 s, then B (a stranger) 2 s, looped: a visit of A each loop.
  const at = { faceSide: 150, cx: 320, cy: 220 };
  clip = await encodeClip(dir, 'door', [
    { placements: [{ person: people.a, ...at }], seconds: 3, drift: 4 },
    { placements: [{ person: people.b, ...at }], seconds: 2, drift: 4 },
  ]);
}, 180_000);

let publisher: Publisher | undefined;
let response: ITriggerResponse | undefined;
afterEach(async () => {
  await response?.closeFunction?.();
  response = undefined;
  await publisher?.close();
  publisher = undefined;
});

afterAll(async () => {
  await vision?.close();
  await streaming?.close();
  await tables?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  cleanUpEngine();
});

function engine(): Engine {
  const store = new CredentialStore();
  store.set('cred', { clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  store.set('n8n', { apiKey: API_KEY, baseUrl: tables.baseUrl });
  return new Engine(pkg, store);
}

function triggerNode(roomId: string, parameters: Record<string, unknown>): INode {
  return {
    id: 'trigger',
    name: 'Face Match Trigger',
    type: `${pkg.packageName}.faceMatchTrigger`,
    typeVersion: 2,
    position: [0, 0],
    credentials: { visionStreamingApi: { id: 'cred', name: 'Sandbox' }, n8nApi: { id: 'n8n', name: 'n8n' } },
    parameters: {
      roomId: { __rl: true, mode: 'id', value: roomId },
      collectionId: { __rl: true, mode: 'id', value: collectionId },
      usePeopleTable: true,
      peopleTable: { __rl: true, mode: 'list', value: tableId },
      threshold: 0.7,
      fps: 4,
      options: { decoder: 'ffmpeg', leftAfterSeconds: 1 },
      ...parameters,
    },
  };
}

test('two photos of one person: one Arrived per visit, named by the table; a rename on the Data Tables page applies within seconds', async () => {
  const room = await streaming.createRoom();
  const emitted: INodeExecutionData[] = [];
  const failed: Error[] = [];
  response = await engine().activate(triggerNode(room.id, { events: ['arrived', 'left'] }), {
    emit: (data) => emitted.push(...data[0]),
    emitError: (e) => failed.push(e),
    saveFailedExecution: (e) => failed.push(e),
  });
  publisher = await publishClip({ streaming } as never, room.id, clip);
  const of = (event: string) => emitted.filter((i) => i.json.event === event && i.json.kind === 'person');
  await waitFor('two visits of the person', () => of('left').length >= 2, 120_000);
  for (const left of of('left')) {
    expect(of('arrived').filter((a) => a.json.visitId === left.json.visitId)).toHaveLength(1);
    expect(left.json).toEqual(expect.objectContaining({ personId: eileen.person_id, personName: 'Eileen' }));
  }
  const arrived = of('arrived')[0].json;
  expect(arrived).toEqual(expect.objectContaining({ personId: eileen.person_id, personName: 'Eileen', label: 'Eileen' }));
  expect(eileen.faces).toContain(arrived.faceId);

  // A user renames the person on n8n's Data Tables page (one row is enough).
  tables.edit(tableId, (r) => r.face_id === eileen.faces[1], { name: 'Eileen Collins' });
  const renamedAt = Date.now();
  // Every visit that began more than 5 s after the edit has the new name.
  const late = () => of('arrived').filter((a) => Date.parse(String(a.json.time)) > renamedAt + 5_000);
  await waitFor('a visit that began over 5 s after the edit', () => late().length > 0, 120_000);
  expect(late().map((a) => a.json.personName)).toEqual(late().map(() => 'Eileen Collins'));
  expect(failed).toEqual([]);
  // The API key is in no item.
  expect(JSON.stringify(emitted.map((i) => i.json))).not.toContain(API_KEY);
}, 300_000);

test('a people table the API key cannot read is a failed execution saying what to check; the watch goes on', async () => {
  const room = await streaming.createRoom();
  const failed: Error[] = [];
  const fatal: Error[] = [];
  const e = engine();
  const wrong = 'not-the-key-4321';
  e.store.set('n8n', { apiKey: wrong, baseUrl: tables.baseUrl });
  response = await e.activate(triggerNode(room.id, { events: ['arrived'] }), { emit: () => undefined, emitError: (err) => fatal.push(err), saveFailedExecution: (err) => failed.push(err) });
  await waitFor('a failed execution', () => failed.length > 0, 30_000);
  expect(failed[0].message).toMatch(/HTTP 401.*n8n API credential/);
  expect((failed[0] as Error & { description?: string }).description).toMatch(/Source: people\.$/);
  expect(failed.map((f) => f.message).join(' ')).not.toContain(wrong);
  // Reported once until the table reads again, not every 2 s.
  await new Promise((r) => setTimeout(r, 5_000));
  expect(failed).toHaveLength(1);
  expect(fatal).toEqual([]);
}, 120_000);
