import { startSandbox, type RunningSandbox } from '../../sandbox';
import { CredentialStore } from './support/credentials-helper';
import { cleanUpEngine, Engine, packageUnderTest, HOOK_NODE, loadPackage, setHook, type LoadedPackage, type NodeSpec } from './support/engine';

// Run again against the n8n Cloud package by test/cloud/action-nodes.test.ts.
const KIND = packageUnderTest();

// Every operation of the Live Streaming node, run by n8n's own engine against the sandbox.

const SECRET = 'live-streaming-test-secret';
let sandbox: RunningSandbox;
let pkg: LoadedPackage;
let LS: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET });
  pkg = await loadPackage(KIND);
  LS = `${pkg.packageName}.liveStreaming`;
}, 180_000);

afterAll(async () => {
  await sandbox?.stop();
  cleanUpEngine();
});

/** The node's credential, under the package's credential type. */
const cred = () => ({ [pkg.credentialType]: { id: 'cred', name: 'Sandbox' } });

function worker(store = new CredentialStore()): Engine {
  store.set('cred', { clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  return new Engine(pkg, store);
}

function ls(name: string, parameters: NodeSpec['parameters'], extra: Partial<NodeSpec> = {}): NodeSpec {
  return { name, type: LS, parameters, credentials: cred(), ...extra };
}

test('rooms: create, get, list all and on air, delete', async () => {
  const engine = worker();
  const created = await engine.runChain([{}], [ls('Create', { resource: 'room', operation: 'create' })]);
  expect(created.error).toBeUndefined();
  const room = created.output('Create')[0].json as { roomId: string; upCount: number; downCount: number; createdAt: string };
  expect(room).toEqual({ roomId: expect.any(String), upCount: 0, downCount: 0, createdAt: expect.any(String) });

  const read = await engine.runChain([{ json: { id: room.roomId } }], [
    ls('Get', { resource: 'room', operation: 'get', roomId: '={{ $json.id }}' }),
    ls('All', { resource: 'room', operation: 'getAll' }),
    ls('On Air', { resource: 'room', operation: 'getAll', state: 'onair' }),
  ]);
  expect(read.error).toBeUndefined();
  expect(read.output('Get')[0].json).toEqual(room);
  expect(read.output('Get')[0].pairedItem).toEqual({ item: 0 });
  const all = read.output('All')[0].json as { state: string; count: number; rooms: { roomId: string }[] };
  expect(all.state).toBe('all');
  expect(all.rooms.map((r) => r.roomId)).toContain(room.roomId);
  expect(read.output('On Air')[0].json).toEqual({ state: 'onair', count: 0, rooms: [] });

  const deleted = await engine.runChain([{}], [ls('Delete', { resource: 'room', operation: 'delete', roomId: room.roomId })]);
  expect(deleted.output('Delete')[0].json).toEqual({ deleted: true, roomId: room.roomId });
  const gone = await engine.runChain([{}], [ls('Get', { resource: 'room', operation: 'get', roomId: room.roomId })]);
  expect(gone.error).toEqual(expect.objectContaining({ name: 'NodeApiError', httpCode: '404' }));
  expect(gone.error?.message).toContain(room.roomId);
});

test('tickets: both directions; the access token only when asked for', async () => {
  const store = new CredentialStore();
  const engine = worker(store);
  const created = await engine.runChain([{}], [ls('Room', { resource: 'room', operation: 'create' })]);
  const roomId = (created.output('Room')[0].json as { roomId: string }).roomId;
  const result = await engine.runChain([{}], [
    ls('Down', { resource: 'ticket', operation: 'create', roomId }),
    ls('Up', { resource: 'ticket', operation: 'create', roomId, direction: 'up', includeAccessToken: true }),
  ]);
  expect(result.error).toBeUndefined();
  const down = result.output('Down')[0].json;
  expect(down).toEqual({ roomId, direction: 'down', url: expect.stringMatching(/^wss?:\/\//) });
  const up = result.output('Up')[0].json as { accessToken: string; direction: string };
  expect(up.direction).toBe('up');
  expect(up.accessToken).toEqual(expect.any(String));
  expect(up.accessToken.length).toBeGreaterThan(8);
  // Not the credential's token: the ticket's own.
  expect(up.accessToken).not.toBe(store.get('cred').accessToken);
  expect(JSON.stringify(result.output('Down'))).not.toContain('access');
});

test('a token expired between nodes is renewed; continue on fail keeps one item per input', async () => {
  const store = new CredentialStore();
  const engine = worker(store);
  const created = await engine.runChain([{}], [ls('Room', { resource: 'room', operation: 'create' })]);
  const roomId = (created.output('Room')[0].json as { roomId: string }).roomId;
  setHook('expire-streaming', () => sandbox.expireTokens());
  const result = await engine.runChain([{ json: { id: roomId } }, { json: { id: 'no-such-room' } }, { json: { id: '' } }], [
    { name: 'Expire', type: HOOK_NODE, parameters: { key: 'expire-streaming' } },
    ls('Get', { resource: 'room', operation: 'get', roomId: '={{ $json.id }}' }, { onError: 'continueRegularOutput' }),
  ]);
  expect(result.error).toBeUndefined();
  const out = result.output('Get');
  expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
  expect(out[0].json.roomId).toBe(roomId);
  expect(out[1].json).toEqual(expect.objectContaining({ httpCode: '404' }));
  expect(out[2].json.description).toMatch(/Room ID/);
  expect(store.preAuthentications).toEqual({ total: 2, renewals: 1 });
  const stored = store.get('cred');
  const text = JSON.stringify(result.run) + JSON.stringify(created.run);
  for (const secret of [SECRET, String(stored.accessToken), String(stored.apiKey)]) expect(text).not.toContain(secret);
});
