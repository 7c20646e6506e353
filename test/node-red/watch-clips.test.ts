import { readFile } from 'node:fs/promises';
import path from 'node:path';
import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import type { Publisher } from '../../shared/publish';
import { publishClip, useStandardScene, type WatchHarness } from '../watch/support/room';
import { probeClip } from '../clips/support/probe';
import { configCredentials, configNode as sandboxConfig, helper, nextMessage, received, until, useNodeRedHelper } from './support/runtime';

// The face watch node with a clips folder, in the real Node-RED runtime: a visit's clip comes out on
// the node's fifth output as the file itself (msg.payload a Buffer, msg.filename its path), ready for
// a chat node; the event's fields ride in msg.clip.

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let publisher: Publisher | undefined;

useStandardScene('nr-clips-', 180_000, (setup) => {
  ({ h, dir, clip } = setup);
  collectionId = setup.scene.collectionId;
});
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});
useNodeRedHelper();

it('a visit\'s clip arrives on output 5 as a Buffer with its filename, the event\'s fields in msg.clip', async () => {
  const room = await h.streaming.createRoom();
  const folder = path.join(dir, 'clips');
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(h.sandbox),
    {
      id: 'w', z: 'f1', type: 'vision-streaming-watch', service: 'svc', roomId: room.id, collectionId, autoStart: true, leftAfterSeconds: '1.5',
      clips: folder, preRollSeconds: '1', postRollSeconds: '1', maxClipSeconds: '60', clipOn: 'arrived',
      wires: [[], [], ['status'], ['presence'], ['clip']],
    },
    { id: 'status', z: 'f1', type: 'helper' },
    { id: 'presence', z: 'f1', type: 'helper' },
    { id: 'clip', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, watchNode], flow, configCredentials(h.sandbox));
  const statuses = received('status');
  const presence = received('presence');
  await until('watching', () => statuses.some((m) => (m.payload as { state: string }).state === 'watching'));
  const next = nextMessage('clip', 90_000);
  publisher = await publishClip(h, room.id, clip);
  const msg = await next;

  expect(msg.topic).toBe('clip');
  expect(Buffer.isBuffer(msg.payload)).toBe(true);
  const fields = msg.clip as { path: string; bytes: number; container: string; visit_id: string; ended: string; error?: string };
  expect(fields).toMatchObject({ event: 'clip', room: room.id, stream_id: publisher.clientId, trigger: 'arrived', container: 'webm', codec: 'VP8' });
  // What ends a clip is the clip suites' to prove (test/clips); here the message is. Under a heavy
  // load a clip has ended as stream_changed (here once, in n8n's clip test once), a cause not yet
  // found; the message is checked the same either way.
  expect(['post_roll', 'stream_changed']).toContain(fields.ended);
  expect(fields.error).toBeUndefined();
  expect(msg.filename).toBe(fields.path);
  expect(path.dirname(msg.filename as string)).toBe(path.resolve(folder));
  const data = msg.payload as Buffer;
  expect(data.length).toBe(fields.bytes);
  expect(Buffer.compare(data, await readFile(fields.path))).toBe(0);
  const read = await probeClip(data, 'webm');
  expect(read).toMatchObject({ codec: 'vp8', firstIsKey: true, errors: '' });
  // The clip is of a visit the presence output told.
  expect(presence.some((m) => m.topic === 'arrived' && (m.payload as { visit_id: string }).visit_id === fields.visit_id)).toBe(true);
}, 180_000);
