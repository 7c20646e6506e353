import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import type { RunningSandbox } from '../../sandbox';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, sandboxForTests, useNodeRedHelper } from './support/runtime';

// The editor's admin endpoints, in Node-RED's runtime: the rooms and collections a config node's
// credential sees (for the pickers), and the config dialog's test. Permissions are checked in a
// real Node-RED with adminAuth by test/node-red/admin-auth.test.ts.

let sandbox: RunningSandbox;
let streaming: StreamingClient;
let vision: VisionClient;

beforeAll(async () => {
  sandbox = await sandboxForTests();
  const credentials = { authUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: 'sandbox-secret' };
  streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url });
  vision = new VisionClient({ ...credentials, visionUrl: sandbox.url });
});
afterAll(async () => {
  await streaming?.close();
  await vision?.close();
  await sandbox?.stop();
});
afterEach(() => sandbox.reset());
useNodeRedHelper();

const FLOW = (): object[] => [{ id: 'f1', type: 'tab', label: 'test' }, sandboxConfig(sandbox), { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, autoStart: false, wires: [[], [], [], []] }];

async function deploy(secret = 'sandbox-secret'): Promise<void> {
  await helper.load([configNode, watchNode], FLOW(), configCredentials(sandbox, secret));
}

test('rooms and collections of the deployed configuration, rooms on air first with their counts, filtered by a search text', async () => {
  await deploy();
  const idle = await streaming.createRoom();
  const other = await streaming.createRoom();
  const { collectionId } = await vision.createCollection();
  const rooms = await helper.request().get('/vision-streaming/rooms').query({ config: CONFIG_ID }).expect(200);
  expect((rooms.body as { value: string }[]).map((r) => r.value).sort()).toEqual([idle.id, other.id].sort());
  expect(rooms.body[0]).toMatchObject({ name: expect.stringMatching(/\(idle, 0 up \/ 0 down\)$/), description: expect.stringContaining('created') });
  const filtered = await helper.request().get('/vision-streaming/rooms').query({ config: CONFIG_ID, filter: other.id.slice(0, 8).toUpperCase() }).expect(200);
  expect((filtered.body as { value: string }[]).map((r) => r.value)).toEqual([other.id]);
  const collections = await helper.request().get('/vision-streaming/collections').query({ config: CONFIG_ID }).expect(200);
  expect(collections.body).toEqual([{ name: collectionId, value: collectionId, description: 'face collection' }]);
  const none = await helper.request().get('/vision-streaming/collections').query({ config: CONFIG_ID, filter: 'nothing-like-this' }).expect(200);
  expect(none.body).toEqual([]);
});

test('no config id is a 400; a configuration that is not deployed is a 404 that says to deploy it first', async () => {
  await deploy();
  const missing = await helper.request().get('/vision-streaming/rooms').expect(400);
  expect(missing.body.error).toMatch(/config is required/);
  const undeployed = await helper.request().get('/vision-streaming/collections').query({ config: 'not-deployed-yet' }).expect(404);
  expect(undeployed.body.error).toMatch(/not deployed yet: deploy it first/);
  const notConfig = await helper.request().get('/vision-streaming/rooms').query({ config: 'w' }).expect(400);
  expect(notConfig.body.error).toMatch(/not a vision-streaming-config node/);
});

test('a refused credential gives the service error, never the secret', async () => {
  await deploy('not-the-secret-123');
  const refused = await helper.request().get('/vision-streaming/rooms').query({ config: CONFIG_ID });
  expect(refused.status).toBe(401);
  expect(refused.body.error).toMatch(/client id or client secret was rejected/);
  expect(JSON.stringify(refused.body)).not.toContain('not-the-secret-123');
});

test("the config dialog's test: the stored secret when unchanged, a typed one otherwise; the answer never holds a secret", async () => {
  await deploy();
  const settings = { id: CONFIG_ID, clientId: '__PWRD__', clientSecret: '__PWRD__', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url };
  await vision.createCollection();
  const stored = await helper.request().post('/vision-streaming/test').send(settings).expect(200);
  expect(stored.body).toEqual({ ok: true, collections: 1, message: 'token received; 1 face collection' });
  const typedWrong = await helper.request().post('/vision-streaming/test').send({ ...settings, clientId: sandbox.clientId, clientSecret: 'typed-wrong-secret' });
  expect(typedWrong.status).toBe(401);
  expect(typedWrong.body.error).toMatch(/client id or client secret was rejected/);
  expect(JSON.stringify(typedWrong.body)).not.toContain('typed-wrong-secret');
  const notDeployed = await helper.request().post('/vision-streaming/test').send({ ...settings, id: 'new-config' }).expect(400);
  expect(notDeployed.body.error).toMatch(/not deployed yet: type it again, or deploy first/);
  // The stored secret is only ever sent to the deployed node's own token endpoint.
  const elsewhere = await helper.request().post('/vision-streaming/test').send({ ...settings, authUrl: 'http://127.0.0.1:9/' }).expect(400);
  expect(elsewhere.body.error).toMatch(/the Auth URL differs from the deployed one: type the client secret again/);
  const visionElsewhere = await helper.request().post('/vision-streaming/test').send({ ...settings, visionUrl: 'http://127.0.0.1:9' }).expect(400);
  expect(visionElsewhere.body.error).toMatch(/the Vision URL differs/);
  const badUrl = await helper.request().post('/vision-streaming/test').send({ ...settings, clientId: 'typed-id', clientSecret: 'typed-secret', visionUrl: 'ftp://nowhere' }).expect(400);
  expect(badUrl.body).toMatchObject({ field: 'visionUrl' });
});
