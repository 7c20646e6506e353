import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import configNode from '../../node-red/config';
import historyNode from '../../node-red/history';
import peopleNode from '../../node-red/people';
import type { RunningSandbox } from '../../sandbox';
import { acquireHistory, type HistoryLease } from '../../shared/history/leases';
import type { HistoryStore, VisitPatch } from '../../shared/history/types';
import { VisionClient } from '../../shared/vision';
import { astronautFaceOfSize, faceApiSample, faceOfSize, mirrorJpeg, type Rect } from '../support/images';
import { faceOfB } from '../support/clip';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, sandboxForTests, useNodeRedHelper } from './support/runtime';

// The history node in Node-RED's runtime: the config node's SQLite history in the user directory
// (the same file a watch node with Keep history writes), searched, read and deleted through the
// node, failures to a Catch node; a search by face through the sandbox's collection; and the
// people node's forget erasing the person's visits from that history; and a config whose History
// DB is a real PostgreSQL (skipped, saying why, where the server is missing).

const SECRET = 'sandbox-secret';
const FACE = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

let sandbox: RunningSandbox;
let vision: VisionClient;
let userDir: string;
let bFace: Rect;
let lease: HistoryLease;
let store: HistoryStore;

beforeAll(async () => {
  sandbox = await sandboxForTests();
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'nr-history-'));
  helper.settings({ userDir });
  bFace = await faceOfB((jpeg) => vision.detectFaces(jpeg));
}, 120_000);
afterAll(async () => {
  await vision?.close();
  await sandbox?.stop();
  if (userDir) await rm(userDir, { recursive: true, force: true });
});
useNodeRedHelper();
afterEach(async () => {
  await lease?.release();
  await rm(path.join(userDir, 'vision-streaming'), { recursive: true, force: true });
});

/** The history the config node keeps, shared in this process with the nodes (as a watch node's writes are). */
async function history(): Promise<HistoryStore> {
  lease = acquireHistory({ location: path.join(userDir, 'vision-streaming', `history-${CONFIG_ID}.sqlite`), makeFolder: true });
  store = await lease.store();
  return store;
}

/** A visit of two minutes (unless `over` says otherwise). */
function visit(id: string, over: Partial<VisitPatch>): VisitPatch {
  const arrived = over.arrived_at ?? '2026-11-24T09:00:00.000Z';
  return { visit_id: id, kind: 'person', room_id: 'room-1', stream_id: 'door', arrived_at: arrived, left_at: new Date(Date.parse(arrived) + 120_000).toISOString(), duration_s: 120, ...over };
}

async function load(collectionId = ''): Promise<void> {
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'h', z: 'f1', type: 'vision-streaming-history', service: CONFIG_ID, collectionId, wires: [['out']] },
    { id: 'p', z: 'f1', type: 'vision-streaming-people', service: CONFIG_ID, collectionId, wires: [['pout']] },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'pout', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, historyNode, peopleNode], flow, configCredentials(sandbox, SECRET));
}

async function op(msg: Record<string, unknown>, node = 'h', out = 'out'): Promise<Record<string, unknown>> {
  const got = nextMessage(out);
  inject(node, msg);
  return got;
}

async function refused(msg: Record<string, unknown>): Promise<{ code: string; message: string; field?: string }> {
  const caught = nextMessage('caught');
  inject('h', msg);
  const error = (await caught).error as { code: string; message: string; cause?: { field?: string } };
  return { code: error.code, message: error.message, field: error.cause?.field };
}

test("search, get and delete the config's visits, with media as paths and, when asked, bytes; bad input goes to Catch naming the field", async () => {
  const h = await history();
  await h.writeVisit(visit('v1', { person_id: 'p_11111111-1111-4111-8111-111111111111', name: 'Courier', arrived_at: '2026-11-24T09:00:00.000Z' }));
  await h.writeVisit(visit('v2', { kind: 'stranger', stream_id: 'garage', arrived_at: '2026-11-25T18:00:00.000Z', left_at: null, duration_s: null }));
  await h.writeVisit(visit('v3', { person_id: 'p_22222222-2222-4222-8222-222222222222', name: 'Anna', arrived_at: '2026-11-26T07:30:00.000Z' }));
  const face = await h.putMedia('v1', 'face', FACE, 'image/jpeg');
  await load();

  const all = await op({});
  expect((all.payload as { visit_id: string }[]).map((r) => r.visit_id)).toEqual(['v3', 'v2', 'v1']);
  expect(all.count).toBe(3);
  const courier = await op({ person: 'courier', since: '2026-11-24', until: '2026-11-25' });
  const [row] = courier.payload as Record<string, unknown>[];
  expect(courier.count).toBe(1);
  expect(row).toMatchObject({ visit_id: 'v1', name: 'Courier', stream_id: 'door', face_path: h.mediaPath(face), snapshot_path: null, clip_path: null });
  expect((await stat(row.face_path as string)).mode & 0o777).toBe(0o600);
  expect(((await op({ kind: 'stranger' })).payload as { visit_id: string; left_at: unknown }[]).map((r) => [r.visit_id, r.left_at])).toEqual([['v2', null]]);
  const page = await op({ limit: 2 });
  expect((page.payload as unknown[]).length).toBe(2);
  expect(typeof page.next).toBe('string');
  expect(((await op({ limit: 2, cursor: page.next })).payload as { visit_id: string }[]).map((r) => r.visit_id)).toEqual(['v1']);

  const got = await op({ operation: 'get', visit_id: 'v1', withMedia: true });
  expect((got.payload as { media: { face: Buffer } }).media.face.equals(FACE)).toBe(true);
  const deleted = await op({ operation: 'delete', payload: { visit_id: 'v1' } });
  expect(deleted.payload).toEqual({ visit_id: 'v1', removed_visits: 1, removed_media: 1 });
  expect(await h.get('v1')).toBeUndefined();
  await expect(stat(h.mediaPath(face))).rejects.toMatchObject({ code: 'ENOENT' });

  expect(await refused({ since: 'last tuesday' })).toMatchObject({ code: 'invalid_input', field: 'since' });
  expect(await refused({ since: '2026-11-26', until: '2026-11-25' })).toMatchObject({ code: 'invalid_input', field: 'until' });
  expect(await refused({ operation: 'drop' })).toMatchObject({ code: 'invalid_input', field: 'operation' });
  expect(await refused({ operation: 'get', visit_id: 'v1' })).toMatchObject({ code: 'invalid_input', field: 'visit_id' });
  expect(await refused({ limit: 5000 })).toMatchObject({ code: 'invalid_input', field: 'limit' });
}, 60_000);

test("a face or a person finds every visit of the person through the collection and the people, a stranger's face was never seen, and forget erases them", async () => {
  const { collectionId } = await vision.createCollection();
  await load(collectionId);
  const added = await op({ operation: 'add', name: 'Alice', payload: astronautFaceOfSize(200) }, 'p', 'pout');
  const personId = added.person_id as string;
  const faceId = (added.payload as { person: { faces: { face_id: string }[] } }).person.faces[0].face_id;
  const h = await history();
  await h.writeVisit(visit('a1', { person_id: personId, name: 'Alice' }));
  await h.putMedia('a1', 'face', FACE, 'image/jpeg');
  // Before she was named, as the stranger her face was; and a watch node without people, under her face alone.
  await h.writeVisit(visit('a0', { kind: 'visitor', visitor_id: faceId, face_id: faceId, arrived_at: '2026-11-23T09:00:00.000Z' }));
  await h.writeVisit(visit('a-face', { face_id: faceId, arrived_at: '2026-11-22T09:00:00.000Z' }));
  await h.writeVisit(visit('s1', { kind: 'stranger' }));

  const found = await op({ face: mirrorJpeg(astronautFaceOfSize(220)) });
  expect(found.identity).toMatchObject({ kind: 'person', person_id: personId, name: 'Alice' });
  expect((found.payload as { visit_id: string }[]).map((r) => r.visit_id)).toEqual(['a1', 'a0', 'a-face']);
  for (const person of ['alice', personId]) {
    const byPerson = await op({ person });
    expect((byPerson.payload as { visit_id: string }[]).map((r) => r.visit_id)).toEqual(['a1', 'a0', 'a-face']);
  }
  const stranger = await op({ face: faceOfSize(faceApiSample(1), bFace, 200) });
  expect(stranger.identity).toMatchObject({ kind: 'never_seen' });
  expect(stranger.payload).toEqual([]);

  const forgot = await op({ operation: 'forget', name: 'Alice' }, 'p', 'pout');
  expect(forgot.payload).toMatchObject({ person_id: personId, removed_visits: 3, removed_media: 1 });
  for (const id of ['a1', 'a0', 'a-face']) expect(await h.get(id)).toBeUndefined();
  expect(await h.get('s1')).toBeDefined();
}, 90_000);

const describePostgres = postgresSkipReason ? describe.skip : describe;
if (postgresSkipReason) console.log(`Node-RED history on PostgreSQL skipped: ${postgresSkipReason}`);

describePostgres('a config node with a PostgreSQL History DB', () => {
  let server: TestPostgres;
  let media: string;
  beforeAll(async () => {
    server = await startPostgres();
    media = await mkdtemp(path.join(os.tmpdir(), 'nr-history-media-'));
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (media) await rm(media, { recursive: true, force: true });
  });

  test('the history node searches the database the credential names, with the media in the shared folder', async () => {
    lease = acquireHistory({ location: server.url, media });
    const pg = await lease.store();
    await pg.writeVisit(visit('pg-1', { person_id: 'p_44444444-4444-4444-8444-444444444444', name: 'Courier' }));
    const face = await pg.putMedia('pg-1', 'face', FACE, 'image/jpeg');
    const flow = [
      { id: 'f1', type: 'tab', label: 'test' },
      { ...sandboxConfig(sandbox), historyMedia: media },
      { id: 'h', z: 'f1', type: 'vision-streaming-history', service: CONFIG_ID, wires: [['out']] },
      { id: 'out', z: 'f1', type: 'helper' },
    ];
    const credentials = configCredentials(sandbox, SECRET);
    credentials[CONFIG_ID] = { ...credentials[CONFIG_ID], historyUrl: server.url };
    await helper.load([configNode, historyNode], flow, credentials);
    const found = await op({ person: 'courier' });
    expect(found.payload).toMatchObject([{ visit_id: 'pg-1', face_path: pg.mediaPath(face) }]);
    expect(pg.mediaPath(face).startsWith(media)).toBe(true);
    // No SQLite file was made in the user directory for this config.
    await expect(stat(path.join(userDir, 'vision-streaming', `history-${CONFIG_ID}.sqlite`))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);
});
