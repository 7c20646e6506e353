import { readFileSync } from 'node:fs';
import path from 'node:path';
import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import type { Publisher } from '../../shared/publish';
import { publishClip, useStandardScene, type WatchHarness } from '../watch/support/room';
import { configCredentials, configNode as sandboxConfig, helper, nextMessage, useNodeRedHelper } from './support/runtime';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const functionNode = require('@node-red/nodes/core/function/10-function.js');

// The demo watch page's Clips panel behind its template: the face watch node with the demo's clip
// settings and wiring, its clip output into "latest clips" exactly as scripts/demo-flow.json has it,
// in the real Node-RED runtime on the standard clip through a real room. A helper node stands where
// the template is and gets what the page shows: the list and the newest clip as a data: URL.

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let faceA: string;
let publisher: Publisher | undefined;

useStandardScene('nr-demo-clips-', 180_000, (setup) => {
  ({ h, dir, clip } = setup);
  ({ collectionId, faceA } = setup.scene);
});
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});
useNodeRedHelper();

const DEMO = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'scripts', 'demo-flow.json'), 'utf8')) as Record<string, unknown>[];

/** A node of the demo flow as committed, by name. */
function demoNode(name: string): Record<string, unknown> {
  const node = DEMO.find((n) => n.name === name);
  if (!node) throw new Error(`scripts/demo-flow.json has no node named ${name}`);
  return node;
}

interface Row {
  time: string;
  who: string;
  duration: string;
  size: string;
  file: string;
}

it("the demo's watch node sends each visit's clip to \"latest clips\", which lists it and makes it a playable data: URL", async () => {
  const demoWatch = demoNode('door camera');
  const latest = demoNode('latest clips');
  // The demo wires the clip output (the fifth) to "latest clips", which feeds the page's template.
  expect(demoWatch).toMatchObject({ clips: '__CLIPS__', clipOn: 'arrived' });
  expect((demoWatch.wires as string[][])[4]).toEqual([latest.id]);
  const template = DEMO.find((n) => n.id === (latest.wires as string[][])[0][0]);
  expect(template).toMatchObject({ type: 'ui-template', name: 'latest clips' });
  expect(template!.format).toContain(':src="msg.payload.video"');

  const room = await h.streaming.createRoom();
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(h.sandbox),
    {
      ...demoWatch,
      id: 'w',
      z: 'f1',
      service: 'svc',
      roomId: room.id,
      collectionId,
      labels: JSON.stringify({ [faceA]: 'Astronaut' }),
      clips: path.join(dir, 'clips'),
      // Shorter than the demo's, so the first clip comes soon.
      preRollSeconds: '1',
      postRollSeconds: '1',
      leftAfterSeconds: '1.5',
      wires: [[], [], [], [], ['latest']],
    },
    { ...latest, id: 'latest', z: 'f1', wires: [['page']] },
    { id: 'page', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, watchNode, functionNode], flow, configCredentials(h.sandbox));
  const first = nextMessage('page', 120_000);
  publisher = await publishClip(h, room.id, clip);
  const msg = await first;

  const view = msg.payload as { clips: Row[]; playing: Row; video: string | null };
  expect(view.clips).toHaveLength(1);
  expect(view.playing).toEqual(view.clips[0]);
  const row = view.playing;
  expect(row.file).toMatch(/^[\w-]+\.webm$/);
  expect(row.duration).toMatch(/^\d+\.\d s$/);
  expect(['Astronaut', 'stranger']).toContain(row.who.startsWith('visitor ') ? 'stranger' : row.who);
  // The page plays exactly the file the watch node wrote.
  expect(view.video).toMatch(/^data:video\/webm;base64,/);
  const bytes = Buffer.from(view.video!.slice(view.video!.indexOf(',') + 1), 'base64');
  expect(Buffer.compare(bytes, readFileSync(path.join(dir, 'clips', row.file)))).toBe(0);
  expect(row.size).toBe(`${Math.round(bytes.length / 1024)} kB`);
}, 180_000);
