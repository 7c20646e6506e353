import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Node } from 'node-red';
import cameraNode from '../../node-red/camera';
import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import { liveFfmpegChildren } from '../../shared/publish';
import { encodeJpeg } from '../support/images';
import { frame } from '../support/clip';
import { standardScene, startWatchHarness, type StandardScene, type WatchHarness } from '../watch/support/room';
import { doorFrames, startRtspCamera, type RtspCamera } from '../publish/support/cameras';
import { configCredentials, configNode as sandboxConfig, helper, inject, useNodeRedHelper } from './support/runtime';

// The camera node in the real Node-RED runtime: an RTSP camera on 127.0.0.1 (H.264 over TCP with a
// password) published into a room and watched by the face watch node of the same flow; and pictures
// sent in msg.payload.

let h: WatchHarness;
let dir: string;
let scene: StandardScene;
let camera: RtspCamera;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'nr-camera-'));
  scene = await standardScene(h);
  camera = await startRtspCamera(await doorFrames(dir, scene.people.a));
}, 180_000);

afterAll(async () => {
  await camera?.stop();
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
useNodeRedHelper();

function collect(id: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  (helper.getNode(id) as Node).on('input', (msg: Record<string, unknown>) => seen.push(msg));
  return seen;
}

function statusCalls(id: string): Record<string, unknown>[] {
  const calls: Record<string, unknown>[] = [];
  (helper.getNode(id) as unknown as NodeJS.EventEmitter).on('call:status', (call: { args: [Record<string, unknown>] }) => calls.push(call.args[0]));
  return calls;
}

async function until(what: string, predicate: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const state = (m: Record<string, unknown>): string => (m.payload as { state: string }).state;

it('an RTSP camera node feeds a face watch node: a match with the camera\'s stream id, again after the camera restarts; no password anywhere', async () => {
  const room = await h.streaming.createRoom();
  const flow = [
    { id: 'f1', type: 'tab', label: 'camera' },
    sandboxConfig(h.sandbox),
    { id: 'cam', z: 'f1', type: 'vision-streaming-camera', service: 'svc', roomId: room.id, source: camera.url, codec: 'H264', autoStart: true, wires: [['camState']] },
    { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: 'svc', roomId: room.id, collectionId: scene.collectionId, codec: 'H264', decoder: 'wasm', cooldownSeconds: '0', autoStart: true, wires: [['match'], [], [], []] },
    { id: 'camState', z: 'f1', type: 'helper' },
    { id: 'match', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, watchNode, cameraNode], flow, configCredentials(h.sandbox));
  const states = collect('camState');
  const matches = collect('match');
  const caught = collect('caught');
  const rings = statusCalls('cam');
  await until('live', () => states.some((m) => state(m) === 'live'));
  const live = states.find((m) => state(m) === 'live')!;
  const streamId = live.streamId as string;
  expect(live.payload).toMatchObject({ stream_id: streamId, relayed: true, codec: 'H264', source: expect.stringContaining('door:***@') });
  await until('a match', () => matches.length > 0, 90_000);
  expect(matches[0].payload).toMatchObject({ face_id: scene.faceA, stream_id: streamId, room: room.id });
  expect(rings).toContainEqual(expect.objectContaining({ fill: 'green', shape: 'dot' }));

  await camera.stop();
  await until('camera_lost', () => states.some((m) => state(m) === 'camera_lost'), 30_000);
  expect(rings).toContainEqual(expect.objectContaining({ fill: 'red', text: expect.stringMatching(/^camera_lost/) }));
  await camera.start();
  const n = states.length;
  await until('live again', () => states.slice(n).some((m) => state(m) === 'live'), 60_000);
  const liveAgain = Date.parse((states.slice(n).find((m) => state(m) === 'live')!.payload as { time: string }).time);
  await until('a match after the restart', () => matches.some((m) => Date.parse((m.payload as { time: string }).time) > liveAgain), 90_000);
  expect(matches.at(-1)!.payload).toMatchObject({ stream_id: streamId });

  inject('cam', { payload: 'stop' });
  await until('stopped', () => states.some((m) => state(m) === 'stopped'));
  expect(rings.at(-1)).toMatchObject({ fill: 'grey' });
  expect(caught).toEqual([]);
  const text = JSON.stringify([states, rings, matches.map((m) => m.payload)]);
  expect(text).not.toContain(camera.password);
  expect(liveFfmpegChildren()).toBe(0);
}, 300_000);

it('pictures in msg.payload are published; a payload that is not a picture reaches the Catch node and the stream goes on', async () => {
  const room = await h.streaming.createRoom();
  const flow = [
    { id: 'f1', type: 'tab', label: 'pictures' },
    sandboxConfig(h.sandbox),
    { id: 'cam', z: 'f1', type: 'vision-streaming-camera', service: 'svc', roomId: room.id, source: '', size: '320x240', wires: [['camState']] },
    { id: 'camState', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, cameraNode], flow, configCredentials(h.sandbox));
  const states = collect('camState');
  const caught = collect('caught');
  const picture = encodeJpeg(frame([{ person: scene.people.a, faceSide: 150, cx: 320, cy: 220 }]), 80);
  inject('cam', { payload: picture });
  await until('live', () => states.some((m) => state(m) === 'live'));
  inject('cam', { payload: Buffer.from('not a picture') });
  await until('the Catch node', () => caught.length > 0);
  expect((caught[0].error as { cause: Record<string, unknown> }).cause).toMatchObject({ name: 'InputError', field: 'payload' });
  inject('cam', { payload: picture });
  await new Promise((r) => setTimeout(r, 1500));
  expect(states.map(state)).not.toContain('camera_lost');
  expect(states.at(-1)!.streamId).toBe(states.find((m) => state(m) === 'live')!.streamId);
  inject('cam', { payload: 'stop' });
  await until('stopped', () => states.some((m) => state(m) === 'stopped'));
  expect(liveFfmpegChildren()).toBe(0);
}, 120_000);

it('the Source\'s password is a credential joined at run time; a flow saved with it in Source still publishes; msg.source may not name a file', async () => {
  const [roomNew, roomOld, roomMsg] = [await h.streaming.createRoom(), await h.streaming.createRoom(), await h.streaming.createRoom()];
  const withoutPassword = camera.url.replace(`:${camera.password}@`, '@');
  expect(withoutPassword).not.toContain(camera.password);
  const flow = [
    { id: 'f1', type: 'tab', label: 'passwords' },
    sandboxConfig(h.sandbox),
    { id: 'camNew', z: 'f1', type: 'vision-streaming-camera', service: 'svc', roomId: roomNew.id, source: withoutPassword, codec: 'H264', autoStart: true, wires: [['stateNew']] },
    { id: 'camOld', z: 'f1', type: 'vision-streaming-camera', service: 'svc', roomId: roomOld.id, source: camera.url, codec: 'H264', autoStart: true, wires: [['stateOld']] },
    { id: 'camMsg', z: 'f1', type: 'vision-streaming-camera', service: 'svc', roomId: roomMsg.id, source: '', codec: 'H264', wires: [['stateMsg']] },
    { id: 'stateNew', z: 'f1', type: 'helper' },
    { id: 'stateOld', z: 'f1', type: 'helper' },
    { id: 'stateMsg', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, cameraNode], flow, { ...configCredentials(h.sandbox), camNew: { password: camera.password } });
  const warnings: string[] = [];
  for (const id of ['camNew', 'camOld']) (helper.getNode(id) as unknown as NodeJS.EventEmitter).on('call:warn', (call: { args: [string] }) => warnings.push(`${id}: ${call.args[0]}`));
  const [stateNew, stateOld, stateMsg, caught] = [collect('stateNew'), collect('stateOld'), collect('stateMsg'), collect('caught')];
  const rings = [...statusCalls('camNew'), ...statusCalls('camOld')];
  await until('the camera with the password credential live', () => stateNew.some((m) => state(m) === 'live'));
  await until('the camera saved with its password in Source live', () => stateOld.some((m) => state(m) === 'live'));
  expect(stateNew.find((m) => state(m) === 'live')!.payload).toMatchObject({ source: expect.stringContaining('door:***@127.0.0.1') });

  // A file named by a message: refused before anything opens it.
  inject('camMsg', { payload: 'start', source: '/etc/passwd' });
  await until('the Catch node', () => caught.length > 0);
  const cause = (caught[0].error as { cause: Record<string, unknown> }).cause;
  expect(cause).toMatchObject({ name: 'InputError', field: 'source', message: expect.stringMatching(/^msg\.source may name a camera URL .* or a \/dev\/videoN device, not a file/) });
  expect(stateMsg).toEqual([]);
  // A URL that would smuggle a header line into the camera's requests: refused before anything is sent.
  inject('camMsg', { payload: 'start', source: 'rtsp://127.0.0.1:9/x\r\nX-Injected: yes' });
  await until('the Catch node again', () => caught.length > 1);
  expect((caught[1].error as { cause: Record<string, unknown> }).cause).toMatchObject({ name: 'InputError', field: 'source', message: expect.stringMatching(/control character|carriage return|line feed/i) });
  expect(stateMsg).toEqual([]);
  // A camera URL with its password in the message still works: a message is not saved.
  inject('camMsg', { payload: 'start', source: camera.url });
  await until('the camera named by msg.source live', () => stateMsg.some((m) => state(m) === 'live'));

  for (const id of ['camNew', 'camOld', 'camMsg']) inject(id, { payload: 'stop' });
  await until('all stopped', () => [stateNew, stateOld, stateMsg].every((s) => s.some((m) => state(m) === 'stopped')));
  expect(warnings).toEqual([expect.stringMatching(/^camOld: Source carries its password, .* open this camera node and deploy/)]);
  expect(caught).toHaveLength(2);
  const text = JSON.stringify([stateNew, stateOld, stateMsg, rings, warnings, caught.map((m) => m.error)]);
  expect(text).not.toContain(camera.password);
  expect(liveFfmpegChildren()).toBe(0);
}, 180_000);
