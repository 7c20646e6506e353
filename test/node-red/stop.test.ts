import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FaultConfig, RunningSandbox } from '../../sandbox';
import cameraNode from '../../node-red/camera';
import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import { liveFfmpegChildren } from '../../shared/publish';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { startMjpegCamera, type MjpegCamera } from '../publish/support/cameras';
import { descendants } from '../publish/support/process-tree';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, received, sandboxForTests, until, useNodeRedHelper, type Received } from './support/runtime';

// The camera and watch nodes close on a redeploy (or a stopped flow) within 5 s whatever their room
// is doing: a first join waiting for refused tickets or a failing token endpoint, or a session
// rejoining. Nothing they started goes on running.

/** The bound the issue states for a close, in ms. */
const CLOSE_BOUND_MS = 5000;

let sandbox: RunningSandbox;
let streaming: StreamingClient;
let vision: VisionClient;
let camera: MjpegCamera;

beforeAll(async () => {
  sandbox = await sandboxForTests();
  const credentials = { authUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: 'sandbox-secret', retry: { retries: 6, baseDelayMs: 10, maxDelayMs: 100 } };
  streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url });
  vision = new VisionClient({ ...credentials, visionUrl: sandbox.url });
  camera = await startMjpegCamera([await readFile(path.join(__dirname, '..', 'fixtures', 'astronaut.jpg'))], { fps: 5 });
}, 60_000);

afterEach(() => sandbox.clearFaults());

afterAll(async () => {
  await streaming?.close();
  await vision?.close();
  await camera?.stop();
  await sandbox?.stop();
});
useNodeRedHelper();

const stateOf = (m: Received): string => (m.payload as { state: string }).state;

function cameraFlow(roomId: string): object[] {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'cam', z: 'f1', type: 'vision-streaming-camera', service: CONFIG_ID, roomId, source: camera.url, size: '320x240', fps: '5', autoStart: true, wires: [['state']] },
    { id: 'state', z: 'f1', type: 'helper' },
  ];
}

/** Status rings a node shows from now on. */
function statuses(id: string): { fill?: string; text?: string }[] {
  const seen: { fill?: string; text?: string }[] = [];
  (helper.getNode(id) as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [{ fill?: string; text?: string }] }) => seen.push(call.args[0]));
  return seen;
}

/** Stops every flow (what a full redeploy does first: each node's close handler) and says how long it took. */
async function timedStop(): Promise<number> {
  const started = Date.now();
  await helper.unload();
  return Date.now() - started;
}

/** Redeploys without a node (only the nodes that changed or went are stopped) and says how long it took. */
async function timedRedeploy(flow: object[]): Promise<number> {
  const started = Date.now();
  await redeploy(flow);
  return Date.now() - started;
}

/**
 * Deploys `flow` as the editor's "modified nodes" deploy does (only the nodes that changed or went are
 * stopped) and resolves once the new flows have started. The runtime's setFlows resolves when the old
 * nodes are stopped and starts the new ones after it; the helper's own setFlows gives that start
 * 300 ms, which a loaded machine can miss, so the start is awaited here with a bound of its own.
 */
async function redeploy(flow: object[]): Promise<void> {
  // The runtime's nodes API and event bus: the helper keeps them, the support file's types do not declare them.
  const runtime = helper as unknown as { _redNodes: { setFlows(flow: object[], credentials: object, type: 'nodes'): Promise<unknown> }; _events: NodeJS.EventEmitter };
  let started = false;
  const onStarted = (): void => {
    started = true;
  };
  runtime._events.once('flows:started', onStarted);
  try {
    await runtime._redNodes.setFlows(flow, {}, 'nodes');
    await until('the redeployed flows to start', () => started, 30_000);
  } finally {
    runtime._events.off('flows:started', onStarted);
  }
}

/** The ffmpeg children of this process. */
function ffmpegChildren(): string[] {
  return descendants(process.pid)
    .map((p) => p.command)
    .filter((c) => c.includes('ffmpeg'));
}

/** Requests the sandbox has had for one endpoint so far. */
function requestsTo(endpoint: string): number {
  return sandbox.stats().byEndpoint[endpoint] ?? 0;
}

/** The sandbox's signaling sessions in a room. */
async function sessionsIn(room: string): Promise<unknown[]> {
  const res = await fetch(`${sandbox.url}/_sandbox/streaming/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return ((await res.json()) as { sessions: { room: string | null }[] }).sessions.filter((x) => x.room === room);
}

async function dropSockets(room: string): Promise<number> {
  const res = await fetch(`${sandbox.url}/_sandbox/streaming/drop-sockets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ room }) });
  return ((await res.json()) as { dropped: number }).dropped;
}

test('a camera node whose first join waits for refused tickets closes within 5 s', async () => {
  const room = await streaming.createRoom();
  sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
  const asked = requestsTo('tickets');
  await helper.load([configNode, cameraNode], cameraFlow(room.id), configCredentials(sandbox));
  const states = received('state');
  const rings = statuses('cam');
  await until('two ticket requests', () => requestsTo('tickets') >= asked + 2, 30_000);
  expect(states.some((m) => stateOf(m) === 'live')).toBe(false);
  const shown = rings.length;
  // A redeploy without the node (the runtime's spies stay on, so a late ring would be seen).
  expect(await timedRedeploy(cameraFlow(room.id).filter((n) => (n as { id: string }).id !== 'cam'))).toBeLessThan(CLOSE_BOUND_MS);
  await new Promise((resolve) => setTimeout(resolve, 500));
  // The start the close ended is no failure: no red ring after the close (it would show on the next deploy's node).
  expect(rings.slice(shown)).toEqual([]);
  expect(liveFfmpegChildren()).toBe(0);
  expect(ffmpegChildren()).toEqual([]);
}, 60_000);

test('a camera node removed by a redeploy while it still opens its source never joins afterwards, though its config stays', async () => {
  const room = await streaming.createRoom();
  // A second user of the config node keeps the connection open when the camera goes.
  const keeper = { id: 'keep', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, autoStart: false, wires: [[], [], [], []] };
  const flow = [...cameraFlow(room.id), keeper];
  await helper.load([configNode, cameraNode, watchNode], flow, configCredentials(sandbox));
  // At once: the camera is still finding ffmpeg and its encoders.
  const started = Date.now();
  await redeploy(flow.filter((n) => (n as { id: string }).id !== 'cam'));
  expect(Date.now() - started).toBeLessThan(CLOSE_BOUND_MS);
  expect(helper.getNode('cam')).toBeFalsy();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const asked = requestsTo('tickets');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(requestsTo('tickets')).toBe(asked);
  expect(await sessionsIn(room.id)).toEqual([]);
  expect(liveFfmpegChildren()).toBe(0);
  expect(ffmpegChildren()).toEqual([]);
}, 60_000);

test('a camera node whose session rejoins a room that refuses tickets closes within 5 s, its ffmpeg stopped', async () => {
  const room = await streaming.createRoom();
  await helper.load([configNode, cameraNode], cameraFlow(room.id), configCredentials(sandbox));
  const states = received('state');
  await until('live', () => states.some((m) => stateOf(m) === 'live'), 60_000);
  expect(liveFfmpegChildren()).toBeGreaterThan(0);
  sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
  expect(await dropSockets(room.id)).toBe(1);
  await until('rejoining twice', () => states.filter((m) => stateOf(m) === 'rejoining').length >= 2, 60_000);
  expect(await timedStop()).toBeLessThan(CLOSE_BOUND_MS);
  expect(liveFfmpegChildren()).toBe(0);
  expect(ffmpegChildren()).toEqual([]);
}, 120_000);

test('a watch node whose first join waits for refused tickets, or for a failing token endpoint, closes within 5 s', async () => {
  const { collectionId } = await vision.createCollection();
  const room = await streaming.createRoom();
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, roomId: room.id, collectionId, autoStart: true, wires: [[], [], ['status'], []] },
    { id: 'status', z: 'f1', type: 'helper' },
  ];
  const cases: [string, FaultConfig][] = [
    ['tickets', { tickets: { tooManyRequests: 1, latencyMs: 1000 } }],
    ['token', { token: { serverError: 1, latencyMs: 300 } }],
  ];
  for (const [endpoint, faults] of cases) {
    sandbox.setFaults(faults);
    const asked = requestsTo(endpoint);
    await helper.load([configNode, watchNode], flow, configCredentials(sandbox));
    const states = received('status');
    const rings = statuses('w');
    await until(`two ${endpoint} requests`, () => requestsTo(endpoint) >= asked + 2, 30_000);
    expect(states.some((m) => stateOf(m) === 'watching')).toBe(false);
    const shown = rings.length;
    expect(await timedRedeploy(flow.filter((n) => (n as { id: string }).id !== 'w'))).toBeLessThan(CLOSE_BOUND_MS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(rings.slice(shown).filter((r) => r.fill === 'red')).toEqual([]);
    await helper.unload();
    sandbox.clearFaults();
  }
}, 120_000);

test('a stop message ends a first join that waits for refused tickets within 5 s, for a camera node and a watch node: grey, no red ring, no more tickets asked', async () => {
  const { collectionId } = await vision.createCollection().catch(async () => ({ collectionId: (await vision.listCollections())[0].collectionId }));
  for (const kind of ['camera', 'watch'] as const) {
    const room = await streaming.createRoom();
    sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
    const id = kind === 'camera' ? 'cam' : 'w';
    const flow =
      kind === 'camera'
        ? cameraFlow(room.id)
        : [{ id: 'f1', type: 'tab', label: 'test' }, sandboxConfig(sandbox), { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, roomId: room.id, collectionId, autoStart: true, wires: [[], [], [], []] }];
    const asked = requestsTo('tickets');
    await helper.load([configNode, cameraNode, watchNode], flow, configCredentials(sandbox));
    const rings = statuses(id);
    await until(`two ticket requests (${kind})`, () => requestsTo('tickets') >= asked + 2, 30_000);
    const started = Date.now();
    helper.getNode(id)!.receive({ payload: 'stop' });
    await until(`the ${kind} node's grey ring`, () => rings.some((r) => r.fill === 'grey'), CLOSE_BOUND_MS);
    expect(Date.now() - started).toBeLessThan(CLOSE_BOUND_MS);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = requestsTo('tickets');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect({ kind, asked: requestsTo('tickets') - after }).toEqual({ kind, asked: 0 });
    expect({ kind, red: rings.filter((r) => r.fill === 'red') }).toEqual({ kind, red: [] });
    expect(liveFfmpegChildren()).toBe(0);
    await helper.unload();
    sandbox.clearFaults();
  }
}, 120_000);
