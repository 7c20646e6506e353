import configNode from '../../node-red/config';
import detectNode from '../../node-red/detect';
import type { Node } from 'node-red';
import type { RunningSandbox } from '../../sandbox';
import type { ServiceConnection } from '../../node-red/lib/connection';
import { astronautJpeg } from '../support/images';
import { configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, sandboxForTests, useNodeRedHelper } from './support/runtime';

let sandbox: RunningSandbox;
let photo: Buffer;

beforeAll(async () => {
  sandbox = await sandboxForTests();
  photo = astronautJpeg();
});
afterAll(() => sandbox?.stop());
afterEach(() => sandbox.reset());
useNodeRedHelper();

/** Two detect nodes on one config node, each wired to its own helper, and one Catch node. */
function twoUsers(): object[] {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'a', z: 'f1', type: 'vision-streaming-detect', service: 'svc', wires: [['outA']] },
    { id: 'b', z: 'f1', type: 'vision-streaming-detect', service: 'svc', wires: [['outB']] },
    { id: 'outA', z: 'f1', type: 'helper' },
    { id: 'outB', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
}

function connection(): ServiceConnection {
  return (helper.getNode('svc') as Node & { connection: ServiceConnection }).connection;
}

/** Status objects a node shows from now on. */
function statuses(id: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  (helper.getNode(id) as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [Record<string, unknown>] }) => seen.push(call.args[0]));
  return seen;
}

async function detect(node: 'a' | 'b'): Promise<Record<string, unknown>> {
  const out = nextMessage(node === 'a' ? 'outA' : 'outB');
  inject(node, { payload: photo });
  return out;
}

it('every node of a config shares one token; a token the service expired is renewed mid-flow', async () => {
  await helper.load([configNode, detectNode], twoUsers(), configCredentials(sandbox));
  expect(connection().userCount).toBe(2);
  await detect('a');
  await detect('b');
  expect(sandbox.stats().tokensIssued).toBe(1);

  sandbox.expireTokens();
  const msg = await detect('a');
  expect(msg.count).toBe(1);
  expect(sandbox.stats().tokensIssued).toBe(2);
  await detect('b');
  expect(sandbox.stats().tokensIssued).toBe(2);
});

it('a refused secret shows on every user of the config and reaches the Catch node, and no secret leaks', async () => {
  const secret = 'not-the-secret-7f3c1';
  await helper.load([configNode, detectNode], twoUsers(), configCredentials(sandbox, secret));
  const seenA = statuses('a');
  const seenB = statuses('b');
  const caught = nextMessage('caught');
  inject('a', { payload: photo });
  const msg = await caught;
  const error = msg.error as { code: string; message: string; cause: Record<string, unknown> };
  expect(error.code).toBe('invalid_client');
  expect(error.cause).toMatchObject({ status: 401, retryable: false, operation: 'getToken' });
  await new Promise((resolve) => setImmediate(resolve));
  expect(seenA).toContainEqual({ fill: 'red', shape: 'ring', text: 'credentials refused' });
  expect(seenB).toContainEqual({ fill: 'red', shape: 'ring', text: 'credentials refused' });

  const everything = JSON.stringify([msg, seenA, seenB, helperLog()]);
  expect(everything).not.toContain(secret);
  expect(everything).not.toContain(Buffer.from(`${sandbox.clientId}:${secret}`).toString('base64'));
});

it('the last node to leave closes the shared clients; a missing config node is a typed error', async () => {
  await helper.load([configNode, detectNode], twoUsers(), configCredentials(sandbox));
  await detect('a');
  const conn = connection();
  expect(conn.open).toBe(true);
  await helper.unload();
  expect(conn.userCount).toBe(0);
  expect(conn.open).toBe(false);

  await helper.load([configNode, detectNode], [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'lone', z: 'f1', type: 'vision-streaming-detect', service: '', wires: [[]] },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ]);
  const caught = nextMessage('caught');
  inject('lone', { payload: photo });
  const error = (await caught).error as { code: string; cause: Record<string, unknown> };
  expect(error.code).toBe('invalid_input');
  expect(error.cause.field).toBe('service');
});

/** Everything the runtime logged during the test. */
function helperLog(): unknown[] {
  const log = (helper as unknown as { log(): { args: unknown[][] } }).log();
  return log.args.map((a) => a[0]);
}
