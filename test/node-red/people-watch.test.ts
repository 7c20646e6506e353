import configNode from '../../node-red/config';
import peopleNode from '../../node-red/people';
import watchNode from '../../node-red/watch';
import type { ImportResult } from '../../shared/people';
import type { Publisher } from '../../shared/publish';
import { publishClip, useStandardScene, type WatchHarness } from '../watch/support/room';
import { CONFIG_ID, configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, received, until, useNodeRedHelper } from './support/runtime';

// A face watch node and a people node of one config, in Node-RED's runtime, on the standard clip
// (A 3 s, the stranger B 3 s, nobody 2 s, looped) through a real room: the people the people node
// makes are the people the watch node names, and a rename while it watches shows in the next visit.

let h: WatchHarness;
let clip: string;
let collectionId: string;
let faceA: string;
let publisher: Publisher | undefined;

useStandardScene('nr-people-watch-', 180_000, ({ h: harness, dir, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
  // The config node keeps its people files under the user directory: a fresh folder of this file's own.
  helper.settings({ userDir: dir });
});
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});
useNodeRedHelper();

it('the watch node names faces by the people of its config; a rename shows in the next visit', async () => {
  const room = await h.streaming.createRoom();
  const flow = [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(h.sandbox),
    { id: 'p', z: 'f1', type: 'vision-streaming-people', service: CONFIG_ID, collectionId, wires: [['out']] },
    { id: 'w', z: 'f1', type: 'vision-streaming-watch', service: CONFIG_ID, roomId: room.id, collectionId, cooldownSeconds: '600', leftAfterSeconds: '2', unknowns: false, autoStart: true, wires: [['match'], [], ['status'], ['presence']] },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'match', z: 'f1', type: 'helper' },
    { id: 'status', z: 'f1', type: 'helper' },
    { id: 'presence', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
  await helper.load([configNode, peopleNode, watchNode], flow, configCredentials(h.sandbox));
  const statuses = received('status');
  const presence = received('presence');
  const caught = received('caught');
  await until('watching', () => statuses.some((m) => (m.payload as { state: string }).state === 'watching'));

  // Named after the watcher started: it sees the change without a restart.
  const imported = nextMessage('out');
  inject('p', { operation: 'import-labels', payload: { [faceA]: 'Door person' } });
  const personId = ((await imported).payload as ImportResult).people[0].person_id;

  const match = nextMessage('match', 120_000);
  publisher = await publishClip(h, room.id, clip);
  expect((await match).payload).toMatchObject({ event: 'match', face_id: faceA, person_id: personId, name: 'Door person', label: 'Door person' });

  const renamed = nextMessage('out');
  inject('p', { operation: 'rename', name: 'door person', to: 'Captain' });
  expect((await renamed).payload).toMatchObject({ person_id: personId, name: 'Captain' });
  const seen = presence.length;
  await until('an arrival of the renamed person', () =>
    presence.slice(seen).some((m) => m.topic === 'arrived' && (m.payload as { person_id?: string; name?: string }).name === 'Captain'),
  );
  const arrival = presence.slice(seen).find((m) => m.topic === 'arrived' && (m.payload as { name?: string }).name === 'Captain')!;
  expect(arrival.payload).toMatchObject({ kind: 'person', person_id: personId, name: 'Captain' });
  expect(caught).toEqual([]);
}, 180_000);
