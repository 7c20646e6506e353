import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { Node } from 'node-red';
import compareNode from '../../node-red/compare';
import configNode from '../../node-red/config';
import detectNode from '../../node-red/detect';
import watchNode from '../../node-red/watch';
import type { RunningSandbox } from '../../sandbox';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { claimedPng } from '../support/claimed-images';
import { tinyJpeg } from '../support/images';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, sandboxForTests, until, useNodeRedHelper } from './support/runtime';

// Hardening in the real Node-RED runtime: the watch node starts again after its room was lost
// (red ring with the reason), the config dialog's test sends no stored credential to a typed
// address, an image too large in pixels never reaches the service, and a URL image on this machine
// is not downloaded for a service elsewhere.

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
useNodeRedHelper();

/** Status objects a node shows from now on. */
function statuses(id: string): { fill?: string; shape?: string; text?: string }[] {
  const seen: { fill?: string; shape?: string; text?: string }[] = [];
  (helper.getNode(id) as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [Record<string, string>] }) => seen.push(call.args[0]));
  return seen;
}


test('the watch node, its room lost, shows why on a red ring and keeps trying to start again, waiting longer each time', async () => {
  const { collectionId } = await vision.createCollection();
  const room = await streaming.createRoom();
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, roomId: room.id, collectionId, autoStart: true, wires: [[], [], ['status'], []] },
    { id: 'status', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, watchNode], flow, configCredentials(sandbox));
  const seen = statuses('w');
  const states: string[] = [];
  (helper.getNode('status') as Node).on('input', (msg: Record<string, unknown>) => states.push((msg.payload as { state: string }).state));
  await until('watching', () => states.includes('watching'));
  await streaming.deleteRoom(room.id);
  // Lost: a red ring with the reason, and a first try again a second later.
  await until('the lost ring', () => seen.some((s) => /^lost: .*again in 1 s$/.test(s.text ?? '')));
  expect(seen.find((s) => s.text?.startsWith('lost: '))).toMatchObject({ fill: 'red', shape: 'ring' });
  expect(states).toContain('stopped');
  // That start fails (the room is gone for good here): the node says so and waits twice as long.
  await until('a failed start again', () => seen.some((s) => /^lost: .*404.*again in 2 s$/i.test(s.text ?? '')), 30_000);
  expect(seen.filter((s) => s.fill === 'grey')).toEqual([]);
  // A stop message ends the retries.
  inject('w', { payload: 'stop' });
  await helper.unload();
}, 90_000);

/** A listener standing in for an address typed into the dialog: records what reaches it. */
async function listener(): Promise<{ url: string; bodies: string[]; stop: () => Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      bodies.push(`${req.url} ${basic ? Buffer.from(basic, 'base64').toString() : ''} ${body}`);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test("the config dialog's test uses the stored client id, like the stored secret, only with the deployed addresses", async () => {
  const flow = [{ id: 'f1', type: 'tab', label: 'test' }, sandboxConfig(sandbox)];
  await helper.load([configNode], flow, { [CONFIG_ID]: { clientId: 'stored-client-id-5e1', clientSecret: 'sandbox-secret' } });
  const rogue = await listener();
  try {
    const here = { id: CONFIG_ID, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url };
    // A typed secret with the stored (unchanged, or left empty) client id, aimed at another address.
    for (const clientId of ['__PWRD__', '']) {
      const res = await helper.request().post('/vision-streaming/test').send({ ...here, authUrl: rogue.url, clientId, clientSecret: 'typed-secret' }).expect(400);
      expect(res.body.error).toMatch(/the Auth URL differs from the deployed one: type the client id again/);
    }
    const vision2 = await helper.request().post('/vision-streaming/test').send({ ...here, visionUrl: rogue.url, clientId: '__PWRD__', clientSecret: '__PWRD__' }).expect(400);
    expect(vision2.body.error).toMatch(/type the client secret again, and the client id,/);
    expect(rogue.bodies).toEqual([]);
    // Typed both: they may go anywhere the user types, stored ones never.
    await helper.request().post('/vision-streaming/test').send({ ...here, authUrl: rogue.url, clientId: 'typed-id', clientSecret: 'typed-secret' }).expect(401);
    expect(rogue.bodies.join('\n')).toContain('typed-id');
    expect(rogue.bodies.join('\n')).not.toContain('stored-client-id-5e1');
  } finally {
    await rogue.stop();
  }
});

test('an image too large in pixels is refused before it is sent, naming the limit; no box drawing decodes it', async () => {
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'n', z: 'f1', type: 'vision-streaming-detect', service: CONFIG_ID, detect: 'faces', drawBoxes: true, wires: [['out']] },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, detectNode], flow, configCredentials(sandbox));
  const before = sandbox.stats().byEndpoint;
  const caught = nextMessage('caught');
  inject('n', { payload: claimedPng(16000, 16000) });
  const msg = await caught;
  expect((msg.error as { message: string }).message).toMatch(/16000x16000 .*limited to at most 25000000 pixels/);
  expect(sandbox.stats().byEndpoint).toEqual(before);
});

test('a URL image on this machine is not downloaded for a service elsewhere', async () => {
  const hits: string[] = [];
  const images: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(tinyJpeg());
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  try {
    const elsewhere = { ...sandboxConfig(sandbox), authUrl: 'https://auth.example.invalid', visionUrl: 'https://vision.example.invalid' };
    const flow = [
      { id: 'f1', type: 'tab', label: 'test' },
      elsewhere,
      { id: 'n', z: 'f1', type: 'vision-streaming-compare', service: CONFIG_ID, wires: [['out']] },
      { id: 'out', z: 'f1', type: 'helper' },
      { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', z: 'f1', type: 'helper' },
    ];
    await helper.load([configNode, compareNode], flow, configCredentials(sandbox));
    const caught = nextMessage('caught');
    inject('n', { payload: tinyJpeg(), target: `http://127.0.0.1:${(images.address() as AddressInfo).port}/cam.jpg` });
    const msg = await caught;
    expect((msg.error as { message: string }).message).toMatch(/target URL leads to a loopback, link-local or private network address/);
    expect(hits).toEqual([]);
  } finally {
    await new Promise((resolve) => images.close(resolve));
  }
});

test('a flood of messages into a detect node queues on a bounded number of sockets (VS_MAX_CONNECTIONS) and every one succeeds', async () => {
  // A TCP relay in front of the sandbox counts the sockets the node's pool opens.
  let open = 0;
  let most = 0;
  const relay = createTcpServer((client) => {
    most = Math.max(most, ++open);
    const upstream = connect(sandbox.port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const done = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      open--;
      done();
    });
    upstream.on('error', done);
    client.on('error', done);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  process.env.VS_MAX_CONNECTIONS = '4';
  try {
    const flow = [
      { id: 'f1', type: 'tab', label: 'test' },
      { ...sandboxConfig(sandbox), authUrl: url, visionUrl: url, sfuUrl: url },
      { id: 'n', z: 'f1', type: 'vision-streaming-detect', service: CONFIG_ID, detect: 'faces', wires: [['out']] },
      { id: 'out', z: 'f1', type: 'helper' },
      { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', z: 'f1', type: 'helper' },
    ];
    await helper.load([configNode, detectNode], flow, configCredentials(sandbox));
    let out = 0;
    let caught = 0;
    (helper.getNode('out') as Node).on('input', () => out++);
    (helper.getNode('caught') as Node).on('input', () => caught++);
    const image = tinyJpeg();
    for (let i = 0; i < 150; i++) inject('n', { payload: image });
    await until('150 answers', () => out + caught >= 150);
    expect(caught).toBe(0);
    expect(most).toBeLessThanOrEqual(4);
    expect(most).toBeGreaterThan(1);
  } finally {
    delete process.env.VS_MAX_CONNECTIONS;
    await helper.unload();
    await new Promise((resolve) => relay.close(resolve));
  }
}, 60_000);
