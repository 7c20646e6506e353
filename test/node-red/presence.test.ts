import { readFileSync } from 'node:fs';
import path from 'node:path';
import configNode from '../../node-red/config';
import watchNode from '../../node-red/watch';
import type { Publisher } from '../../shared/publish';
import { publishClip, useStandardScene, type WatchHarness } from '../watch/support/room';
import { configCredentials, configNode as sandboxConfig, helper, received, until, useNodeRedHelper } from './support/runtime';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const functionNode = require('@node-red/nodes/core/function/10-function.js');

// The demo's "who is here now" and "recent events" function nodes, exactly as scripts/demo-flow.json
// has them, fed by the face watch node's presence output in the real Node-RED runtime; and mute.

let h: WatchHarness;
let clip: string;
let collectionId: string;
let faceA: string;
let publisher: Publisher | undefined;

useStandardScene('nr-presence-', 180_000, ({ h: harness, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
});
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});
useNodeRedHelper();

/** A node of the demo flow as committed. */
function demoNode(name: string): Record<string, unknown> {
  const flow = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'scripts', 'demo-flow.json'), 'utf8')) as Record<string, unknown>[];
  const node = flow.find((n) => n.name === name);
  if (!node) throw new Error(`the demo flow has no node named ${name}`);
  return node;
}

function flow(roomId: string, watch: Record<string, unknown>): object[] {
  const demoWatch = demoNode('door camera');
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(h.sandbox),
    {
      id: 'w',
      z: 'f1',
      type: 'vision-streaming-watch',
      service: 'svc',
      roomId,
      collectionId,
      cooldownSeconds: demoWatch.cooldownSeconds,
      leftAfterSeconds: '2',
      unknowns: true,
      autoStart: true,
      labels: JSON.stringify({ [faceA]: 'Astronaut' }),
      // The demo's wiring: output 4 (presence) feeds who is here now.
      wires: [['recent'], ['recent'], [], ['here', 'recent', 'presence']],
      ...watch,
    },
    { ...demoNode('who is here now'), id: 'here', z: 'f1', wires: [['table']] },
    { ...demoNode('recent events'), id: 'recent', z: 'f1', wires: [['events']] },
    { id: 'table', z: 'f1', type: 'helper' },
    { id: 'events', z: 'f1', type: 'helper' },
    { id: 'presence', z: 'f1', type: 'helper' },
  ];
}



type Row = { who: string; since: string; camera: string };

it("the demo's Here now lists exactly who is on a visit: the known person while in view, then nobody; Recent events shows arrivals", async () => {
  const room = await h.streaming.createRoom();
  await helper.load([configNode, watchNode, functionNode], flow(room.id, {}), configCredentials(h.sandbox));
  const tables = received('table');
  const events = received('events');
  const presence = received('presence');
  publisher = await publishClip(h, room.id, clip);
  const lefts = () => presence.filter((m) => m.topic === 'left' && (m.payload as { face_id?: string }).face_id === faceA);
  await until('two visits of the known person over', () => lefts().length >= 2);
  // Replay the presence output: after each message, the table the demo shows is the visits under way.
  const open = new Map<string, string>();
  expect(tables.length).toBeGreaterThan(3);
  tables.forEach((table, i) => {
    const m = presence[i];
    const p = m.payload as { visit_id: string; label: string | null };
    if (m.topic === 'arrived') open.set(p.visit_id, p.label ?? '');
    else open.delete(p.visit_id);
    const shown = (table.payload as Row[]).map((r) => r.who);
    expect(shown).toHaveLength(open.size);
    expect(shown.filter((w) => w === 'Astronaut').length).toBe([...open.values()].filter((l) => l === 'Astronaut').length);
  });
  // The known person was listed, and departures took rows out again.
  const rows = (i: number) => (tables[i].payload as Row[]).length;
  expect(tables.some((t) => (t.payload as Row[]).some((r) => r.who === 'Astronaut'))).toBe(true);
  expect(tables.some((_, i) => i > 0 && rows(i) < rows(i - 1))).toBe(true);
  const recent = (events.at(-1)!.payload as { who: string; event: string }[]).map((r) => r.event);
  expect(recent).toContain('arrived');
});

it('Ignore: the muted person sends nothing on any output; strangers still arrive', async () => {
  const room = await h.streaming.createRoom();
  await helper.load([configNode, watchNode, functionNode], flow(room.id, { ignore: 'Astronaut' }), configCredentials(h.sandbox));
  const presence = received('presence');
  const events = received('events');
  publisher = await publishClip(h, room.id, clip);
  await until('two strangers arrived', () => presence.filter((m) => m.topic === 'arrived').length >= 2);
  const all = [...presence, ...events].map((m) => JSON.stringify(m.payload));
  expect(all.some((text) => text.includes(faceA) || text.includes('Astronaut'))).toBe(false);
  expect(presence.filter((m) => m.topic === 'arrived').every((m) => (m.payload as { kind: string }).kind === 'stranger')).toBe(true);
});
