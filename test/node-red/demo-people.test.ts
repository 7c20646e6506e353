import { readFileSync } from 'node:fs';
import path from 'node:path';
import configNode from '../../node-red/config';
import peopleNode from '../../node-red/people';
import watchNode from '../../node-red/watch';
import type { Publisher } from '../../shared/publish';
import { publishClip, useStandardScene, type WatchHarness } from '../watch/support/room';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, inject, received, until, useNodeRedHelper, type Received } from './support/runtime';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const functionNode = require('@node-red/nodes/core/function/10-function.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const injectNode = require('@node-red/nodes/core/common/20-inject.js');

// The demo's People page behind its templates: the nodes of scripts/demo-people-flow.json as committed
// (the labels inject, the people node, its catch, "people panel", "to the people node"), fed by a real
// face watch node on the standard clip (A 3 s, the stranger B 3 s, nobody 2 s, looped) through a real
// room. Helper nodes stand where the two templates are: they get the view the page shows, and the
// messages the page's buttons send go into "to the people node". Chromium is left to e2e:demo-people.

let h: WatchHarness;
let clip: string;
let collectionId: string;
let faceA: string;
let publisher: Publisher | undefined;

useStandardScene('nr-demo-people-', 180_000, ({ h: harness, dir, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
  helper.settings({ userDir: dir });
});
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});
useNodeRedHelper();

interface Person {
  person_id: string;
  name: string;
  faces: number;
  not_faces: number;
  thumb: string | null;
  visits: number;
  matches: number;
}
interface View {
  people: Person[];
  strangers: { visitor_id: string; thumb: string; visits: number }[];
  receipts: { person_id: string; name: string; removed_faces: string[]; forgotten_at: string; at: string }[];
  events: { who: string; what: string; named?: boolean }[];
  error: { operation: string; text: string } | null;
}

const DEMO = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'scripts', 'demo-people-flow.json'), 'utf8')) as Record<string, unknown>[];

/** A node of the People page's flow as committed, by name. */
function demoNode(name: string): Record<string, unknown> {
  const node = DEMO.find((n) => n.name === name);
  if (!node) throw new Error(`scripts/demo-people-flow.json has no node named ${name}`);
  return node;
}

/** The committed nodes with the demo's placeholders filled in and the templates' places taken by helpers. */
function flow(roomId: string): object[] {
  const fill = (node: Record<string, unknown>, extra: Record<string, unknown>) => ({ ...node, z: 'f1', ...extra });
  const panel = demoNode('people panel');
  const labels = demoNode('import the demo labels');
  const people = demoNode('people');
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(h.sandbox),
    {
      id: 'w',
      z: 'f1',
      type: 'vision-streaming-watch',
      service: CONFIG_ID,
      roomId,
      collectionId,
      cooldownSeconds: '20',
      leftAfterSeconds: '2',
      unknowns: true,
      rememberVisitors: true,
      autoStart: true,
      // The demo's wiring: match, unknown and presence feed the panel.
      wires: [[panel.id], [panel.id], [], [panel.id]],
    },
    fill(labels, { payload: JSON.stringify({ [faceA]: 'Astronaut' }) }),
    fill(people, { service: CONFIG_ID, collectionId }),
    fill(demoNode('people refused'), {}),
    fill(panel, { wires: [['view'], (panel.wires as string[][])[1]] }),
    fill(demoNode('to the people node'), {}),
    { id: 'view', z: 'f1', type: 'helper' },
  ];
}

it("the People page's flow: the known person listed with a face and counts, a stranger named and then named by the watch node, a refused name said, Forget with its receipt", async () => {
  const room = await h.streaming.createRoom();
  await helper.load([configNode, peopleNode, watchNode, functionNode, injectNode], flow(room.id), configCredentials(h.sandbox));
  const views = received('view');
  const view = (): View => (views.at(-1)?.payload ?? { people: [], strangers: [], receipts: [], events: [], error: null }) as View;
  const person = (name: string): Person | undefined => view().people.find((p) => p.name === name);
  const act = (msg: Received) => inject(demoNode('to the people node').id as string, msg);

  // The demo's labels are imported at deploy: the known person is a person of the directory.
  await until('the known person listed', () => person('Astronaut')?.faces === 1, 30_000);
  publisher = await publishClip(h, room.id, clip);
  await until('the known person with a face crop and a visit', () => /^data:image\/jpeg;base64,/.test(person('Astronaut')?.thumb ?? '') && person('Astronaut')!.visits >= 1);

  await until('a remembered stranger', () => view().strangers.length > 0);
  const stranger = view().strangers[0];
  expect(stranger.thumb).toMatch(/^data:image\/jpeg;base64,/);

  // A name the people node refuses is said, and the stranger stays.
  act({ action: 'name', visitor_id: stranger.visitor_id, name: 'B\tea', _client: { socketId: 'x' } });
  await until('the refusal', () => view().error !== null);
  expect(view().error).toEqual({ operation: 'add', text: expect.stringMatching(/^name holds a control character/) });
  expect(view().strangers.map((s) => s.visitor_id)).toContain(stranger.visitor_id);

  // Only what the page offers reaches the people node.
  const before = views.length;
  act({ action: 'rename', person_id: person('Astronaut')!.person_id, to: 'Mallory' });
  act({ operation: 'forget', person_id: person('Astronaut')!.person_id });

  act({ action: 'name', visitor_id: stranger.visitor_id, name: 'Bea' });
  await until('the visitor a person', () => person('Bea') !== undefined && !view().strangers.some((s) => s.visitor_id === stranger.visitor_id));
  expect(view().error).toBeNull();
  expect(person('Bea')).toMatchObject({ faces: 1, thumb: stranger.thumb });
  expect(person('Astronaut')).toBeDefined();
  expect(views.slice(before).some((m) => (m.payload as View).people.some((p) => p.name === 'Mallory'))).toBe(false);

  // The watch node names the next visit: rows the panel makes of events carry the name.
  await until('an event of the watch node naming Bea', () => view().events.some((e) => e.who === 'Bea' && e.named === true && /^(arrived|match)/.test(e.what)), 60_000);

  act({ action: 'forget', person_id: person('Bea')!.person_id });
  await until('the receipt', () => view().receipts.length > 0);
  expect(view().receipts[0]).toMatchObject({ name: 'Bea', removed_faces: [stranger.visitor_id], at: expect.any(String) });
  expect(Number.isNaN(Date.parse(view().receipts[0].forgotten_at))).toBe(false);
  await until('Bea gone from the list', () => person('Bea') === undefined);
  expect(JSON.stringify(views.map((m) => m.payload))).not.toContain('sandbox-secret');
}, 240_000);
