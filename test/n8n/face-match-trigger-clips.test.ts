import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { INode, INodeExecutionData, ITriggerResponse } from 'n8n-workflow';
import { acquireHistory } from '../../shared/history/leases';
import type { VisitRecord } from '../../shared/history/types';
import type { Publisher } from '../../shared/publish';
import { probeClip } from '../clips/support/probe';
import { encodeClip } from '../support/clip';
import { publishClip, standardScene, startWatchHarness, waitFor, type WatchHarness } from '../watch/support/room';
import { CredentialStore } from './support/credentials-helper';
import { cleanUpEngine, Engine, loadPackage, readBinary, type LoadedPackage } from './support/engine';

// The Face Match Trigger with Clips on, activated by n8n-core against a sandbox room a test
// publisher streams into: each visit's clip is an item with the video as the binary property clip,
// ready for a Telegram or Slack node; a clip that could not be made is an item with error; with
// Keep History the visit, its face and its clip are kept in n8n's folder.

let h: WatchHarness;
let pkg: LoadedPackage;
let dir: string;
let clip: string;
let collectionId: string;

beforeAll(async () => {
  // Built first: a long build would leave the clients' pooled connections idle long enough for the sandbox to close them.
  pkg = await loadPackage();
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'n8n-trigger-clips-'));
  const scene = await standardScene(h);
  collectionId = scene.collectionId;
  clip = await encodeClip(dir, 'standard', scene.segments);
}, 180_000);

afterAll(async () => {
  await h?.stop();
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
});

function engine(): Engine {
  const store = new CredentialStore();
  store.set('cred', { clientId: 'sandbox-client', clientSecret: 'sandbox-secret', authUrl: h.sandbox.url, visionUrl: h.sandbox.url, sfuUrl: h.sandbox.url });
  return new Engine(pkg, store);
}

/** The trigger with Clips on and short rolls, so that a visit's clip is complete within seconds. */
function triggerNode(roomId: string, parameters: Record<string, unknown> = {}): INode {
  return {
    id: 'trigger',
    name: 'Face Match Trigger',
    type: `${pkg.packageName}.faceMatchTrigger`,
    typeVersion: 2,
    position: [0, 0],
    credentials: { visionStreamingApi: { id: 'cred', name: 'Sandbox' } },
    parameters: {
      roomId: { __rl: true, mode: 'id', value: roomId },
      collectionId: { __rl: true, mode: 'id', value: collectionId },
      events: ['arrived'],
      clips: true,
      preRollSeconds: 1,
      postRollSeconds: 1,
      clipOn: ['arrived'],
      options: { leftAfterSeconds: 1.5 },
      ...parameters,
    },
  };
}

function listeners(): { emitted: INodeExecutionData[]; failed: Error[]; emit: (d: INodeExecutionData[][]) => void; emitError: (e: Error) => void; saveFailedExecution: (e: Error) => void } {
  const emitted: INodeExecutionData[] = [];
  const failed: Error[] = [];
  return { emitted, failed, emit: (d) => emitted.push(...d[0]), emitError: (e) => failed.push(e), saveFailedExecution: (e) => failed.push(e) };
}

test('a visit\'s clip is an item with the video as binary clip (video/webm, its file name, its bytes), written in n8n\'s folder and deleted once emitted', async () => {
  const room = await h.streaming.createRoom();
  const l = listeners();
  response = await engine().activate(triggerNode(room.id), l);
  publisher = await publishClip(h, room.id, clip);
  await waitFor('a clip item', () => l.emitted.some((i) => i.json.event === 'clip'), 90_000);
  const item = l.emitted.find((i) => i.json.event === 'clip')!;

  // The event's fields in camelCase, as every item's.
  expect(item.json).toMatchObject({ event: 'clip', roomId: room.id, streamId: publisher.clientId, trigger: 'arrived', container: 'webm', codec: 'VP8' });
  // What ends a clip is the clip suites' to prove (test/clips); here the item is. Under a heavy load
  // one CI run's clip ended as stream_changed, a cause not yet found; the item is checked the same either way.
  expect(['post_roll', 'stream_changed']).toContain(item.json.ended);
  expect(item.json.error).toBeUndefined();
  const file = item.json.path as string;
  // Without a Clips Folder, clips go to clips in n8n's .n8n folder.
  expect(path.dirname(file)).toBe(path.join(process.env.N8N_USER_FOLDER!, '.n8n', 'clips'));
  const binary = item.binary!.clip;
  expect(binary).toMatchObject({ mimeType: 'video/webm', fileName: path.basename(file), fileExtension: 'webm' });
  const data = await readBinary(binary);
  expect(data.length).toBeGreaterThan(0);
  expect(data.length).toBe(item.json.bytes);
  expect(await probeClip(data, 'webm')).toMatchObject({ codec: 'vp8', firstIsKey: true, errors: '' });
  // The item holds the video: the file is gone (Keep Clip Files is off).
  expect(existsSync(file)).toBe(false);
  // The clip is of a visit the trigger told.
  expect(l.emitted.some((i) => i.json.event === 'arrived' && i.json.visitId === item.json.visitId)).toBe(true);
  expect(l.failed).toEqual([]);
}, 120_000);

test('a clip that could not be made (its folder gone) is an item with error and no binary', async () => {
  const room = await h.streaming.createRoom();
  const folder = path.join(dir, 'clips-gone');
  const l = listeners();
  response = await engine().activate(triggerNode(room.id, { clipsFolder: folder }), l);
  // Checked and made at activation; gone afterwards, so no clip can be written.
  expect(existsSync(folder)).toBe(true);
  await rm(folder, { recursive: true, force: true });
  publisher = await publishClip(h, room.id, clip);
  await waitFor('a clip item', () => l.emitted.some((i) => i.json.event === 'clip'), 90_000);
  const item = l.emitted.find((i) => i.json.event === 'clip')!;
  expect(item.json).toMatchObject({ event: 'clip', roomId: room.id, error: 'write_failed', cause: 'ENOENT' });
  expect(item.binary).toBeUndefined();
  expect(l.failed).toEqual([]);
}, 120_000);

test("with Keep History, the visit is kept in this n8n's history with its face and its clip, though the clip's file is deleted once emitted", async () => {
  const room = await h.streaming.createRoom();
  const l = listeners();
  response = await engine().activate(triggerNode(room.id, { keepHistory: true }), l);
  publisher = await publishClip(h, room.id, clip);
  await waitFor('a clip item', () => l.emitted.some((i) => i.json.event === 'clip' && !i.json.error), 90_000);
  const item = l.emitted.find((i) => i.json.event === 'clip' && !i.json.error)!;
  expect(existsSync(item.json.path as string)).toBe(false);
  // The same file Visual Recognition > History reads (this n8n's folder), shared with the trigger in this process.
  const lease = acquireHistory({ location: path.join(process.env.N8N_USER_FOLDER!, '.n8n', 'vision-streaming', 'history.sqlite') });
  try {
    const store = await lease.store();
    // The recorder writes off the event path: the clip lands a moment after its item.
    let visit: VisitRecord | undefined;
    for (let tries = 0; tries < 60 && !(visit?.clip && visit.face); tries++) {
      if (tries > 0) await new Promise((r) => setTimeout(r, 500));
      visit = await store.get(item.json.visitId as string);
    }
    expect(visit).toMatchObject({ visit_id: item.json.visitId, room_id: room.id, stream_id: publisher.clientId });
    expect((await store.readMedia(visit!.clip!)).length).toBe(item.json.bytes);
  } finally {
    await lease.release();
  }
  expect(l.failed).toEqual([]);
}, 120_000);
