import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Node } from 'node-red';
import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import type { Publisher } from '../../shared/publish';
import { astronautFaceOfSize, mirrorJpeg } from '../support/images';
import { encodeClip, faceOfB, loadPeople } from '../support/clip';
import { publishClip, startWatchHarness, type WatchHarness } from '../watch/support/room';
import { configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, received, until, useNodeRedHelper } from './support/runtime';

// A room with a publisher streaming a clip (A, the astronaut, then B, a stranger, then nobody),
// a collection holding A, and the face watch node in the real Node-RED runtime.

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let faceA: string;
let publisher: Publisher | undefined;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'nr-watch-'));
  const people = loadPeople(await faceOfB((jpeg) => h.vision.detectFaces(jpeg)));
  collectionId = (await h.vision.createCollection()).collectionId;
  faceA = (await h.vision.addFace(collectionId, mirrorJpeg(astronautFaceOfSize(220)))).faceId;
  const at = { faceSide: 150, cx: 320, cy: 220 };
  clip = await encodeClip(dir, 'nr', [
    { placements: [{ person: people.a, ...at }], seconds: 3, drift: 4 },
    { placements: [{ person: people.b, ...at }], seconds: 3, drift: 4 },
    { placements: [], seconds: 2 },
  ]);
}, 180_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});
useNodeRedHelper();

function flow(watch: Record<string, unknown>): object[] {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(h.sandbox),
    { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: 'svc', collectionId, cooldownSeconds: '600', drawBoxes: true, unknowns: true, autoStart: true, wires: [['match'], ['unknown'], ['status'], ['left']], ...watch },
    { id: 'match', z: 'f1', type: 'helper' },
    { id: 'left', z: 'f1', type: 'helper' },
    { id: 'unknown', z: 'f1', type: 'helper' },
    { id: 'status', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
}



it('a flow from before that turned the WebRTC speed-ups off still deploys, with one warning that they are the process setting VS_WERIFT_SPEEDUPS=0 now', async () => {
  await helper.load([configNode, watchNode], flow({ roomId: 'not-started', autoStart: false, weriftSpeedups: false }), configCredentials(h.sandbox));
  expect(helper.getNode('w')).toBeDefined();
  // The warning is given while the node is made, before a listener could be added: the runtime's log has it.
  const log = (helper as unknown as { _logSpy: { args: [{ level: number; id?: string; msg: unknown }][] } })._logSpy;
  const warnings = log.args.map(([entry]) => entry).filter((entry) => entry.id === 'w' && /speed-ups/.test(String(entry.msg)));
  expect(warnings).toHaveLength(1);
  expect(String(warnings[0].msg)).toMatch(/process setting.*VS_WERIFT_SPEEDUPS=0/);
});

it('starts on deploy, sends a match with its snapshots and label, shows its state, and stops on a control message', async () => {
  const room = await h.streaming.createRoom();
  const statusCalls: Record<string, unknown>[] = [];
  await helper.load([configNode, watchNode], flow({ roomId: room.id, labels: JSON.stringify({ [faceA]: 'Astronaut' }) }), configCredentials(h.sandbox));
  (helper.getNode('w') as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [Record<string, unknown>] }) => statusCalls.push(call.args[0]));
  const statuses = received('status');
  const unknowns = received('unknown');
  const caught = received('caught');
  await until('watching', () => statuses.some((m) => (m.payload as { state: string }).state === 'watching'));
  const match = nextMessage('match', 120_000);
  publisher = await publishClip(h, room.id, clip);
  const msg = await match;

  expect(msg.topic).toBe('match');
  expect(msg.payload).toMatchObject({ event: 'match', face_id: faceA, label: 'Astronaut', room: room.id, stream_id: publisher.clientId });
  expect((msg.payload as { score: number }).score).toBeGreaterThanOrEqual(0.7);
  expect(msg.payload).not.toHaveProperty('snapshot');
  expect((msg.snapshot as Buffer).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect((msg.snapshotBoxes as Buffer).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect((msg.face as Buffer).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(msg.payload).not.toHaveProperty('face');
  expect(msg.payload).not.toHaveProperty('snapshot_boxes');
  // Where the latency went, as the core reports it: every field of the event is in the payload.
  expect((msg.payload as { timing_ms: unknown }).timing_ms).toEqual({ decode: expect.any(Number), snapshot: expect.any(Number), detect: expect.any(Number), crop: expect.any(Number), compare: expect.any(Number) });
  expect(Buffer.compare(msg.snapshot as Buffer, msg.snapshotBoxes as Buffer)).not.toBe(0);
  await until('an unknown face', () => unknowns.length > 0);
  expect(unknowns[0].payload).toMatchObject({ event: 'unknown', room: room.id });

  expect(statusCalls[0]).toMatchObject({ fill: 'yellow', shape: 'ring', text: 'joining' });
  expect(statusCalls).toContainEqual(expect.objectContaining({ fill: 'green', shape: 'dot', text: expect.stringMatching(/^watching: 1 stream, 1 match/) }));

  inject('w', { payload: 'stop' });
  await until('stopped', () => statuses.some((m) => (m.payload as { state: string }).state === 'stopped'));
  expect(statusCalls[statusCalls.length - 1]).toMatchObject({ fill: 'grey', text: 'stopped' });
  expect(caught).toEqual([]);
  const text = JSON.stringify([statuses, statusCalls, msg.payload]);
  expect(text).not.toMatch(/sandbox-secret|access_token/);
}, 240_000);

it('a room that does not exist reaches the Catch node and turns the ring red; msg.roomId switches to a real room', async () => {
  const room = await h.streaming.createRoom();
  const statusCalls: Record<string, unknown>[] = [];
  await helper.load([configNode, watchNode], flow({ roomId: 'no-such-room' }), configCredentials(h.sandbox));
  // The start fails after the deploy, on the service's answer: listening now is in time.
  const caughtMsg = nextMessage('caught', 60_000);
  (helper.getNode('w') as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [Record<string, unknown>] }) => statusCalls.push(call.args[0]));
  const caught = await caughtMsg;
  const error = caught.error as { code: string; cause: Record<string, unknown> };
  expect(error.cause).toMatchObject({ retryable: false });
  expect(JSON.stringify(error)).toContain('no-such-room');
  await until('a red ring', () => statusCalls.some((s) => s.fill === 'red'));

  // A control message that fails to start fails with done(err): one Catch message, not two.
  const caughtNow = received('caught');
  inject('w', { roomId: 'still-no-such-room' });
  await until('the failed switch at the Catch node', () => caughtNow.length > 0, 60_000);
  // Control messages are handled one after the other: once the next one's failure is caught, a
  // second Catch message for the first would have come before it.
  inject('w', { roomId: 'nor-this-room' });
  await until('the next failed switch at the Catch node', () => caughtNow.some((m) => JSON.stringify(m.error).includes('nor-this-room')), 60_000);
  expect(caughtNow).toHaveLength(2);
  expect(JSON.stringify(caughtNow[0].error)).toContain('still-no-such-room');

  const statuses = received('status');
  inject('w', { roomId: room.id });
  await until('watching the new room', () => statuses.some((m) => (m.payload as { state: string; room: string }).state === 'watching' && (m.payload as { room: string }).room === room.id));
}, 180_000);

it('closing while the watcher is still joining ends well within the runtime close timeout (15 s)', async () => {
  const room = await h.streaming.createRoom();
  // The sandbox holds the watcher's first request (reading the room) for 30 s.
  h.sandbox.setFaults({ rooms: { latencyMs: 30_000 } });
  try {
    await helper.load([configNode, watchNode], flow({ roomId: room.id }), configCredentials(h.sandbox));
    const node = helper.getNode('w') as Node & { close(removed: boolean): Promise<void> };
    const statusCalls: Record<string, unknown>[] = [];
    (node as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [Record<string, unknown>] }) => statusCalls.push(call.args[0]));
    await until('joining', () => statusCalls.some((s) => s.text === 'joining'), 30_000);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      node.close(true).then(() => 'closed'),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('still closing after 12 s'), 12_000);
      }),
    ]);
    clearTimeout(timer);
    expect(outcome).toBe('closed');
  } finally {
    h.sandbox.clearFaults();
  }
}, 120_000);

it('remembers a stranger under one visitor_id in its context, and says on output 4 who left', async () => {
  const room = await h.streaming.createRoom();
  await helper.load([configNode, watchNode], flow({ roomId: room.id, cooldownSeconds: '1', rememberVisitors: true, leftAfterSeconds: '1' }), configCredentials(h.sandbox));
  const unknowns = received('unknown');
  // Output 4 is presence: arrivals and departures, told apart by msg.topic.
  const presence = received('left');
  const lefts = presence.filter.bind(presence, (m) => m.topic === 'left');
  const caught = received('caught');
  publisher = await publishClip(h, room.id, clip);
  await until('the stranger twice and a departure', () => unknowns.length >= 2 && lefts().length >= 1);
  const [first, second] = unknowns.map((m) => m.payload as { visitor_id: string; first_visit: boolean; visits: number });
  expect(first).toMatchObject({ first_visit: true, visits: 1 });
  expect(second).toMatchObject({ visitor_id: first.visitor_id, first_visit: false, visits: 2 });
  expect((unknowns[0].face as Buffer).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(lefts()[0].payload).toMatchObject({ event: 'left', room: room.id, arrived_at: expect.any(String), left_at: expect.any(String), duration_s: expect.any(Number) });
  // Its arrival came first on the same output, with the same visit_id.
  const visit = (lefts()[0].payload as { visit_id: string }).visit_id;
  expect(presence.findIndex((m) => m.topic === 'arrived' && (m.payload as { visit_id: string }).visit_id === visit)).toBeLessThan(presence.indexOf(lefts()[0]));
  const stored = (helper.getNode('w') as Node).context().get('visitors') as { visitors: { visitorId: string }[] };
  expect(stored.visitors.map((v) => v.visitorId)).toEqual([first.visitor_id]);
  expect(caught).toEqual([]);
  await h.vision.removeFace(collectionId, first.visitor_id);
});

it('an error the watcher reports while running reaches the Catch node with msg.source, and the watch goes on', async () => {
  const room = await h.streaming.createRoom();
  await helper.load([configNode, watchNode], flow({ roomId: room.id }), configCredentials(h.sandbox));
  const statuses = received('status');
  const caught = received('caught');
  await until('watching', () => statuses.some((m) => (m.payload as { state: string }).state === 'watching'));
  h.sandbox.setFaults({ detect_faces: { serverError: 1 } });
  try {
    publisher = await publishClip(h, room.id, clip);
    await until('a failed analysis at the Catch node', () => caught.length > 0);
  } finally {
    h.sandbox.clearFaults();
  }
  expect(caught[0]).toMatchObject({ topic: 'error', source: 'api', payload: { name: 'ApiError', status: 500 } });
  expect((caught[0].error as { code: string }).code).toBe('http_500');
  expect(statuses.some((m) => (m.payload as { state: string }).state === 'stopped')).toBe(false);
}, 120_000);
