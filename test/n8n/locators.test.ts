import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { IConnections, INode } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { CredentialStore } from './support/credentials-helper';
import { cleanUpEngine, Engine, loadPackage, type LoadedPackage, type NodeSpec } from './support/engine';

// Version 2 of the nodes: rooms and collections as resource locators. The lists run through n8n's
// own LoadOptionsContext with the node's credential, as the editor's list endpoint runs them; the
// workflows run through WorkflowExecute. (Version 1 workflows: the other test files, unchanged.)

const SECRET = 'locator-test-secret';
let sandbox: RunningSandbox;
let pkg: LoadedPackage;
let streaming: StreamingClient;
let vision: VisionClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET });
  pkg = await loadPackage();
  const credentials = { authUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET };
  streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url });
  vision = new VisionClient({ ...credentials, visionUrl: sandbox.url });
}, 180_000);

afterAll(async () => {
  await streaming?.close();
  await vision?.close();
  await sandbox?.stop();
  cleanUpEngine();
});

afterEach(() => sandbox.reset());

function engine(secret = SECRET): Engine {
  const store = new CredentialStore();
  store.set('cred', { clientId: sandbox.clientId, clientSecret: secret, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  return new Engine(pkg, store);
}

const CRED = { visionStreamingApi: { id: 'cred', name: 'Sandbox' } };

function node(type: 'visualRecognition' | 'liveStreaming' | 'faceMatchTrigger'): INode {
  return { id: 'n', name: 'Node', type: `${pkg.packageName}.${type}`, typeVersion: 2, position: [0, 0], parameters: {}, credentials: CRED };
}

const rl = (mode: 'list' | 'id', value: string) => ({ __rl: true, mode, value });

test('the room and collection lists: on air first with counts, searchable, empty when there is nothing', async () => {
  const e = engine();
  expect(await e.listSearch(node('visualRecognition'), 'searchCollections')).toEqual({ results: [] });
  const a = await streaming.createRoom();
  const b = await streaming.createRoom();
  const { collectionId } = await vision.createCollection();
  const rooms = await e.listSearch(node('liveStreaming'), 'searchRooms');
  expect(rooms.results.map((r) => r.value).sort()).toEqual([a.id, b.id].sort());
  expect(rooms.results[0].name).toMatch(/ \(idle, 0 up \/ 0 down\)$/);
  expect((await e.listSearch(node('liveStreaming'), 'searchRooms', b.id.slice(0, 8))).results.map((r) => r.value)).toEqual([b.id]);
  // The trigger lists both too, with the same methods.
  expect((await e.listSearch(node('faceMatchTrigger'), 'searchRooms')).results).toHaveLength(2);
  expect((await e.listSearch(node('faceMatchTrigger'), 'searchCollections')).results).toEqual([{ name: collectionId, value: collectionId, description: 'face collection' }]);
  expect((await e.listSearch(node('visualRecognition'), 'searchCollections', 'no-such')).results).toEqual([]);
});

test('a list with a refused credential fails with n8n\'s error, not an empty list, and does not show the secret', async () => {
  const failure = engine('wrong-secret-456').listSearch(node('liveStreaming'), 'searchRooms');
  await expect(failure).rejects.toMatchObject({ name: 'NodeApiError' });
  await expect(failure).rejects.toThrow(/client id or client secret was rejected/);
  await expect(failure).rejects.not.toThrow(/wrong-secret-456/);
});

test('a version 2 workflow runs with rooms and collections picked from the list or given by ID', async () => {
  const room = await streaming.createRoom();
  const { collectionId } = await vision.createCollection();
  const LS = `${pkg.packageName}.liveStreaming`;
  const VR = `${pkg.packageName}.visualRecognition`;
  const spec = (name: string, type: string, parameters: NodeSpec['parameters']): NodeSpec => ({ name, type, typeVersion: 2, parameters, credentials: CRED });
  const result = await engine().runChain([{ json: { room: room.id } }], [
    spec('Get', LS, { resource: 'room', operation: 'get', roomId: rl('list', room.id) }),
    spec('Ticket', LS, { resource: 'ticket', operation: 'create', roomId: rl('id', '={{ $("Source").item.json.room }}') }),
    spec('Faces', VR, { resource: 'collectionFace', operation: 'getAll', collectionId: rl('id', collectionId) }),
  ]);
  expect(result.error).toBeUndefined();
  expect(result.output('Get')[0].json).toMatchObject({ roomId: room.id });
  expect(result.output('Ticket')[0].json).toMatchObject({ roomId: room.id, direction: 'down' });
  expect(result.output('Faces')[0].json).toMatchObject({ collectionId, count: 0 });
});

test('an ID that is not a UUID fails before anything is sent, naming the parameter; a room that is gone gives the 404 naming it', async () => {
  const LS = `${pkg.packageName}.liveStreaming`;
  const before = ((await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as { requests?: number; tokensIssued?: number });
  // Pasted: n8n's own check of the locator refuses the workflow before it runs.
  const pasted = engine().runChain([{}], [{ name: 'Get', type: LS, typeVersion: 2, parameters: { resource: 'room', operation: 'get', roomId: rl('id', 'not-a-room') }, credentials: CRED }]);
  await expect(pasted).rejects.toThrow(/The 'Get' node has issues:\s+- Not a valid room ID: room IDs are UUIDs/);
  // From an expression (which the editor cannot check): the node fails, naming the parameter.
  const bad = await engine().runChain([{}], [{ name: 'Get', type: LS, typeVersion: 2, parameters: { resource: 'room', operation: 'get', roomId: rl('id', '={{ "not-a-room" }}') }, credentials: CRED }]);
  expect(bad.error).toMatchObject({ name: 'NodeOperationError' });
  expect(bad.error?.message).toMatch(/roomId must be a UUID .*got "not-a-room"/);
  expect((bad.error as Error & { description?: string }).description).toMatch(/Check the parameter "Room ID"\. Allowed: a UUID/);
  const after = ((await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as { requests?: number; tokensIssued?: number });
  expect(after.tokensIssued).toBe(before.tokensIssued);
  const room = await streaming.createRoom();
  await streaming.deleteRoom(room.id);
  const gone = await engine().runChain([{}], [{ name: 'Get', type: LS, typeVersion: 2, parameters: { resource: 'room', operation: 'get', roomId: rl('list', room.id) }, credentials: CRED }]);
  expect(gone.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
  expect(gone.error?.message).toContain(room.id);
});

test('a workflow saved with version 1 of the nodes (plain text IDs) loads and runs as before', async () => {
  const saved = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'rooms-v1.json'), 'utf8')) as { nodes: INode[]; connections: IConnections };
  expect(saved.nodes.filter((n) => n.type.startsWith(`${pkg.packageName}.`)).every((n) => n.typeVersion === 1)).toBe(true);
  const e = engine();
  // The source node stands in for the manual start: one empty item.
  e.setSourceItems('saved-v1', [{}]);
  const result = await e.run(saved.nodes, saved.connections);
  expect(result.error).toBeUndefined();
  const room = result.output('Create Room')[0].json as { roomId: string };
  expect(result.output('Get Room')[0].json).toMatchObject({ roomId: room.roomId });
  const { collectionId } = result.output('Create Collection')[0].json as { collectionId: string };
  expect(result.output('Faces')[0].json).toMatchObject({ collectionId, count: 0 });
});
