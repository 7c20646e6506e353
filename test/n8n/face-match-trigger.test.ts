import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { INode, INodeExecutionData, ITriggerResponse } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import type { Publisher } from '../../shared/publish';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { astronautFaceOfSize, mirrorJpeg } from '../support/images';
import { encodeClip, faceOfB, loadPeople } from '../support/clip';
import { publishClip, waitFor } from '../watch/support/room';
import { CredentialStore } from './support/credentials-helper';
import { cleanUpEngine, Engine, HOOK_NODE, loadPackage, readBinary, setHook, type LoadedPackage } from './support/engine';

// The Face Match Trigger activated by n8n-core (TriggersAndPollers + TriggerContext, mode 'trigger')
// and run in manual mode by WorkflowExecute, watching a sandbox room a test publisher streams into.

const SECRET = 'trigger-test-secret';
let sandbox: RunningSandbox;
let pkg: LoadedPackage;
let TYPE: string;
let vision: VisionClient;
let streaming: StreamingClient;
let dir: string;
let clip: string;
let collectionId: string;
let faceA: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET, eagerModel: true, streaming: { countDelayMs: 0 } });
  const credentials = { authUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET };
  vision = new VisionClient({ ...credentials, visionUrl: sandbox.url });
  streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url });
  dir = await mkdtemp(path.join(os.tmpdir(), 'n8n-trigger-'));
  const people = loadPeople(await faceOfB((jpeg) => vision.detectFaces(jpeg)));
  collectionId = (await vision.createCollection()).collectionId;
  faceA = (await vision.addFace(collectionId, mirrorJpeg(astronautFaceOfSize(220)))).faceId;
  // A (known) 3 s, then B (a stranger) 2 s, looped.
  const at = { faceSide: 150, cx: 320, cy: 220 };
  clip = await encodeClip(dir, 'door', [
    { placements: [{ person: people.a, ...at }], seconds: 3, drift: 4 },
    { placements: [{ person: people.b, ...at }], seconds: 2, drift: 4 },
  ]);
  pkg = await loadPackage();
  TYPE = `${pkg.packageName}.faceMatchTrigger`;
}, 180_000);

afterAll(async () => {
  await vision?.close();
  await streaming?.close();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  cleanUpEngine();
});

let publisher: Publisher | undefined;
let response: ITriggerResponse | undefined;
afterEach(async () => {
  await response?.closeFunction?.();
  response = undefined;
  await publisher?.close();
  publisher = undefined;
  await sandbox.clearFaults();
});

function engine(secret = SECRET): Engine {
  const store = new CredentialStore();
  store.set('cred', { clientId: sandbox.clientId, clientSecret: secret, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  return new Engine(pkg, store);
}

/** The trigger node; version 2 takes the room and the collection as resource locators (picked from the list here), version 1 as text. */
function triggerNode(roomId: string, parameters: Record<string, unknown> = {}, version: 1 | 2 = 1): INode {
  const ids = version === 2 ? { roomId: { __rl: true, mode: 'list', value: roomId }, collectionId: { __rl: true, mode: 'id', value: collectionId } } : { roomId, collectionId };
  return {
    id: 'trigger',
    name: 'Face Match Trigger',
    type: TYPE,
    typeVersion: version,
    position: [0, 0],
    credentials: { visionStreamingApi: { id: 'cred', name: 'Sandbox' } },
    parameters: { ...ids, events: ['match'], threshold: 0.7, cooldownSeconds: 600, fps: 4, labels: { label: [{ id: faceA, name: 'Eileen' }] }, options: { decoder: 'ffmpeg' }, ...parameters },
  };
}

async function sessions(): Promise<{ room: string | null; role: string | null }[]> {
  const res = await fetch(`${sandbox.url}/_sandbox/streaming/sessions`, { method: 'POST' });
  return ((await res.json()) as { sessions: { room: string | null; role: string | null }[] }).sessions;
}

interface Listened {
  emitted: INodeExecutionData[];
  fatal: Error[];
  failed: Error[];
}

function listeners(): Listened & { emit: (d: INodeExecutionData[][]) => void; emitError: (e: Error) => void; saveFailedExecution: (e: Error) => void } {
  const got: Listened = { emitted: [], fatal: [], failed: [] };
  return {
    ...got,
    emit: (data) => got.emitted.push(...data[0]),
    emitError: (e) => got.fatal.push(e),
    saveFailedExecution: (e) => got.failed.push(e),
  };
}

test('trigger mode: activation waits for the join; a known face is one match item with its snapshot; close releases everything, twice', async () => {
  const room = await streaming.createRoom();
  const l = listeners();
  const e = engine();
  // Saved before the WebRTC speed-ups became a process setting: the option it still carries is ignored.
  response = await e.activate(triggerNode(room.id, { events: ['match', 'unknown'], options: { decoder: 'ffmpeg', weriftSpeedups: false } }, 2), l);
  // Activated means joined: the watcher's viewer session is in the room already.
  expect((await sessions()).filter((s) => s.room === room.id && s.role === 'down')).toHaveLength(1);
  publisher = await publishClip({ streaming } as never, room.id, clip);
  await waitFor('a match', () => l.emitted.some((i) => i.json.event === 'match'), 120_000);
  const match = l.emitted.find((i) => i.json.event === 'match')!;
  expect(match.json).toEqual(
    expect.objectContaining({ event: 'match', faceId: faceA, label: 'Eileen', roomId: room.id, streamId: publisher.clientId, track: expect.any(Number), time: expect.any(String) }),
  );
  expect(match.json.score as number).toBeGreaterThanOrEqual(0.7);
  expect(match.json.width as number).toBeGreaterThan(50);
  // Fields the core adds reach the item by the rule (camelCase), nested ones too.
  expect(match.json.latencyMs).toEqual(expect.any(Number));
  expect(match.json.timingMs).toEqual({ decode: expect.any(Number), snapshot: expect.any(Number), detect: expect.any(Number), crop: expect.any(Number), compare: expect.any(Number) });
  expect(match.json.quality).toEqual(expect.objectContaining({ facePx: expect.any(Number), greyscale: expect.any(Boolean) }));
  expect(match.binary?.snapshot.mimeType).toBe('image/jpeg');
  const jpeg = await readBinary(match.binary!.snapshot);
  expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  // The face crop sits next to the snapshot, ready for Collection Face > Add.
  expect(match.binary?.face.mimeType).toBe('image/jpeg');
  const face = await readBinary(match.binary!.face);
  expect(face.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(Buffer.compare(face, jpeg)).not.toBe(0);
  expect(l.fatal).toEqual([]);
  expect(l.failed).toEqual([]);

  await response!.closeFunction!();
  await response!.closeFunction!();
  response = undefined;
  expect((await sessions()).filter((s) => s.room === room.id && s.role === 'down')).toHaveLength(0);
  const count = l.emitted.length;
  // The camera goes on: 20 more frames, which a watcher still running would have sampled, give nothing.
  const frames = publisher.stats.frames;
  await waitFor('20 more frames from the camera', () => publisher!.stats.frames >= frames + 20, 30_000);
  expect(l.emitted.length).toBe(count);
  // No secret of the credential in what the trigger produced.
  const text = JSON.stringify(l.emitted.map((i) => i.json));
  for (const secret of [SECRET, String(e.store.get('cred').accessToken)]) expect(text).not.toContain(secret);
}, 240_000);

test('remembered visitors and departures: unknown items carry visitorId and the face binary, Left items who left', async () => {
  const room = await streaming.createRoom();
  const l = listeners();
  response = await engine().activate(
    triggerNode(room.id, { events: ['unknown', 'left'], cooldownSeconds: 1, options: { decoder: 'ffmpeg', rememberVisitors: true, leftAfterSeconds: 1 } }),
    l,
  );
  publisher = await publishClip({ streaming } as never, room.id, clip);
  const unknowns = () => l.emitted.filter((i) => i.json.event === 'unknown');
  await waitFor('the stranger twice and a departure', () => unknowns().length >= 2 && l.emitted.some((i) => i.json.event === 'left'), 120_000);
  const [first, second] = unknowns();
  expect(first.json).toEqual(expect.objectContaining({ visitorId: expect.any(String), firstVisit: true, visits: 1 }));
  expect(second.json).toEqual(expect.objectContaining({ visitorId: first.json.visitorId, firstVisit: false, visits: 2 }));
  expect(first.binary?.face.mimeType).toBe('image/jpeg');
  const left = l.emitted.find((i) => i.json.event === 'left')!;
  expect(left.json).toEqual(expect.objectContaining({ roomId: room.id, arrivedAt: expect.any(String), leftAt: expect.any(String), durationS: expect.any(Number) }));
  expect(left.binary).toBeUndefined();
  // No match items: only the chosen events start the workflow.
  expect(l.emitted.some((i) => i.json.event === 'match')).toBe(false);
  expect(l.failed).toEqual([]);
  await vision.removeFace(collectionId, String(first.json.visitorId));
}, 240_000);

test('Arrived and Ignore: the muted person starts nothing; each stranger visit is an Arrived item paired with its Left by visitId', async () => {
  const room = await streaming.createRoom();
  const l = listeners();
  response = await engine().activate(triggerNode(room.id, { events: ['match', 'arrived', 'left'], options: { decoder: 'ffmpeg', ignore: 'Eileen', leftAfterSeconds: 1 } }, 2), l);
  publisher = await publishClip({ streaming } as never, room.id, clip);
  const lefts = () => l.emitted.filter((i) => i.json.event === 'left');
  await waitFor('a stranger arrived and left', () => lefts().length >= 1, 120_000);
  expect(l.emitted.some((i) => i.json.faceId === faceA || i.json.label === 'Eileen' || i.json.event === 'match')).toBe(false);
  const arrived = l.emitted.find((i) => i.json.event === 'arrived')!;
  expect(arrived.json).toEqual(expect.objectContaining({ kind: 'stranger', visitId: expect.any(String), track: expect.any(Number), quality: expect.objectContaining({ facePx: expect.any(Number), sharpness: expect.any(Number) }) }));
  expect(arrived.binary?.snapshot.mimeType).toBe('image/jpeg');
  const left = lefts()[0];
  expect(l.emitted.filter((i) => i.json.event === 'arrived' && i.json.visitId === left.json.visitId)).toHaveLength(1);
  expect(left.json).toEqual(expect.objectContaining({ kind: 'stranger', reason: 'not_seen' }));
  expect(l.failed).toEqual([]);
}, 240_000);

test('tokens expired while watching are renewed: the match still comes', async () => {
  const room = await streaming.createRoom();
  const l = listeners();
  response = await engine().activate(triggerNode(room.id), l);
  const issued = sandbox.stats().tokensIssued;
  await sandbox.expireTokens();
  publisher = await publishClip({ streaming } as never, room.id, clip);
  await waitFor('a match after the expiry', () => l.emitted.some((i) => i.json.event === 'match'), 120_000);
  expect(sandbox.stats().tokensIssued).toBeGreaterThan(issued);
  expect(l.failed).toEqual([]);
  expect(l.fatal).toEqual([]);
}, 240_000);

test('activation fails clearly for an unknown room and for a wrong secret, leaving nothing open', async () => {
  const l = listeners();
  await expect(engine().activate(triggerNode('no-such-room'), l)).rejects.toThrow(/room "no-such-room" does not exist/);
  await expect(engine('wrong-secret-xyz').activate(triggerNode('no-such-room'), l)).rejects.toThrow(/client id or client secret was rejected/);
  await expect(engine().activate(triggerNode('r', { threshold: 1.5 }), l)).rejects.toThrow(/threshold/);
  // Version 2: an ID that is not a UUID (from an expression the editor cannot check) names the parameter.
  await expect(engine().activate(triggerNode('={{ "no-such-room" }}', {}, 2), l)).rejects.toThrow(/roomId must be a UUID/);
  expect((await sessions()).filter((s) => s.role === 'down')).toHaveLength(0);
  expect(l.emitted).toEqual([]);
});

test('one failed analysis is a failed execution, not the end; losing the room for good is emitError', async () => {
  const room = await streaming.createRoom();
  const l = listeners();
  response = await engine().activate(triggerNode(room.id, { events: ['match', 'unknown'] }), l);
  await sandbox.setFaults({ detect_faces: { serverError: 1 } });
  publisher = await publishClip({ streaming } as never, room.id, clip);
  await waitFor('a failed execution', () => l.failed.length > 0, 120_000);
  expect(l.failed[0].name).toBe('NodeApiError');
  expect(l.failed[0].message).toMatch(/detectFaces failed: HTTP 500/);
  expect((l.failed[0] as Error & { description?: string }).description).toMatch(/Source: api\.$/);
  expect(l.fatal).toEqual([]);
  await sandbox.clearFaults();
  // The room goes away: the watcher cannot rejoin and gives up.
  await publisher.close();
  publisher = undefined;
  await streaming.deleteRoom(room.id);
  await waitFor('emitError', () => l.fatal.length > 0, 120_000);
  expect(l.fatal[0].message.length).toBeGreaterThan(0);
  expect((l.fatal[0] as Error & { description?: string }).description).toMatch(/Source: session\.$/);
  expect((await sessions()).filter((s) => s.role === 'down')).toHaveLength(0);
}, 240_000);

test('manual mode ("listen for test event"): the first event is the output, then the trigger closes', async () => {
  const room = await streaming.createRoom();
  setHook('after', () => undefined);
  publisher = await publishClip({ streaming } as never, room.id, clip);
  const e = engine();
  const result = await e.run(
    [triggerNode(room.id, { events: ['match', 'unknown'] }), { id: 'h', name: 'After', type: HOOK_NODE, typeVersion: 1, position: [200, 0], parameters: { key: 'after' } }],
    { 'Face Match Trigger': { main: [[{ node: 'After', type: 'main', index: 0 }]] } },
  );
  expect(result.error).toBeUndefined();
  const out = result.output('Face Match Trigger');
  expect(out).toHaveLength(1);
  expect(['match', 'unknown']).toContain(out[0].json.event);
  expect(out[0].binary?.snapshot).toBeDefined();
  expect(result.output('After')).toHaveLength(1);
  const left = async () => (await sessions()).filter((s) => s.room === room.id && s.role === 'down').length === 0;
  const deadline = Date.now() + 20_000;
  while (!(await left()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(await left()).toBe(true);
}, 240_000);
