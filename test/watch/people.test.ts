import type { Publisher } from '../../shared/publish';
import { FaceWatcher, MemoryPeopleStore, PeopleDirectory, type ArrivedEvent, type LeftEvent, type MatchEvent, type PeopleStore, type WatchEvent, type WatchOptions } from '../../shared/watch';
import { astronautFaceOfSize } from '../support/images';
import { collect, publishClip, useStandardScene, waitFor, type WatchHarness } from './support/room';

// The watcher's someone is the person, not the photo: A enrolled from two photos and named one
// person in the people store gives one arrival per visit, one match per cooldown and one entry in
// present(), on the standard clip (A 3 s, the stranger B 3 s, nobody 2 s, looped) through a real room.

let h: WatchHarness;
let clip: string;
let collectionId: string;
let faceA: string;
let faceA2: string;

useStandardScene('people-', 180_000, async ({ h: harness, scene, clip: standard }) => {
  h = harness;
  clip = standard;
  ({ collectionId, faceA } = scene);
  // A second photo of A: the same person under another face_id.
  faceA2 = (await h.vision.addFace(collectionId, astronautFaceOfSize(200))).faceId;
});

let publisher: Publisher | undefined;
let watcher: FaceWatcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  await publisher?.close();
  watcher = undefined;
  publisher = undefined;
});

async function peopleStore(): Promise<{ store: MemoryPeopleStore; directory: PeopleDirectory; personId: string }> {
  const store = new MemoryPeopleStore();
  const directory = new PeopleDirectory({ collectionId, store, vision: h.vision });
  const made = await directory.importLabels({ [faceA]: 'Door person', [faceA2]: 'Door person' });
  expect(made.people).toHaveLength(1);
  return { store, directory, personId: made.people[0].person_id };
}

async function watch(options: Partial<WatchOptions>): Promise<WatchEvent[]> {
  const room = await h.streaming.createRoom();
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, cooldownSeconds: 600, leftAfterSeconds: 2, ...options });
  const events = collect((n, fn) => watcher!.on(n, fn));
  await watcher.start();
  publisher = await publishClip(h, room.id, clip);
  return events;
}

const ofPerson = (events: WatchEvent[], personId: string) => events.filter((e) => (e as { person_id?: string }).person_id === personId);

test('two faces of one person: one arrival per visit, one match per cooldown, one entry in present', async () => {
  const { store, personId } = await peopleStore();
  const events = await watch({ people: store });
  const here: { person_id?: string; name?: string }[][] = [];
  await waitFor('two visits of the person over', () => {
    here.push(watcher!.present().filter((p) => p.kind === 'person'));
    return events.filter((e): e is LeftEvent => e.event === 'left' && e.person_id === personId).length >= 2;
  }, 120_000);
  await watcher!.stop();
  const mine = ofPerson(events, personId);
  const arrivals = mine.filter((e): e is ArrivedEvent => e.event === 'arrived');
  const departures = mine.filter((e): e is LeftEvent => e.event === 'left');
  const matches = events.filter((e): e is MatchEvent => e.event === 'match');
  // Every visit began with one arrival and ended with one left: as many of each, in turn.
  expect(arrivals.length).toBe(departures.length);
  expect(mine.filter((e) => e.event === 'arrived' || e.event === 'left').map((e) => e.event)).toEqual(arrivals.flatMap(() => ['arrived', 'left']));
  expect(new Set(arrivals.map((a) => a.visit_id)).size).toBe(arrivals.length);
  // The cooldown (600 s) is the person's: one match, whichever face matched.
  expect(matches).toHaveLength(1);
  expect(matches[0]).toMatchObject({ person_id: personId, name: 'Door person', label: 'Door person' });
  for (const e of [...arrivals, ...matches]) expect([faceA, faceA2]).toContain(e.face_id);
  for (const a of arrivals) expect(a).toMatchObject({ kind: 'person', person_id: personId, name: 'Door person', label: 'Door person' });
  for (const l of departures) expect(l).toMatchObject({ kind: 'person', person_id: personId, name: 'Door person', label: 'Door person' });
  // Nothing about A goes out under a face alone.
  expect(events.filter((e) => e.event !== 'status' && e.event !== 'error' && (e as { face_id?: string }).face_id !== undefined && (e as { person_id?: string }).person_id === undefined)).toEqual([]);
  // present() lists the person once at most, by person.
  expect(here.some((list) => list.length === 1 && list[0].person_id === personId && list[0].name === 'Door person')).toBe(true);
  expect(here.every((list) => list.length <= 1)).toBe(true);
}, 180_000);

test('a rename in the store shows in the next events within 5 s, without a restart (a store that does not signal, re-read every 2 s)', async () => {
  const { store, directory, personId } = await peopleStore();
  // Only load and update: the watcher finds the change by re-reading.
  const quiet: PeopleStore = { load: () => store.load(), update: (change) => store.update(change) };
  const events = await watch({ people: quiet });
  await waitFor('the person arrived', () => ofPerson(events, personId).some((e) => e.event === 'arrived'), 60_000);
  await directory.rename({ person: { person_id: personId }, to: 'Front door' });
  const renamedAt = Date.now();
  await waitFor('a visit of the person that began after the rename', () => ofPerson(events, personId).some((e) => e.event === 'arrived' && Date.parse((e as ArrivedEvent).time) >= renamedAt + 5000), 90_000);
  const later = ofPerson(events, personId).filter((e) => Date.parse((e as { time: string }).time) >= renamedAt + 5000);
  expect(later.length).toBeGreaterThanOrEqual(1);
  for (const e of later) expect(e).toMatchObject({ name: 'Front door', label: 'Front door' });
  const present = watcher!.present().filter((p) => p.person_id === personId);
  for (const p of present) expect(p.name).toBe('Front door');
}, 180_000);

test('ignore by name mutes the person (any of their faces); the stranger still comes', async () => {
  const { store, personId } = await peopleStore();
  const events = await watch({ people: store, ignore: ['door PERSON'] });
  await waitFor('the stranger twice', () => events.filter((e) => e.event === 'arrived' && (e as ArrivedEvent).kind === 'stranger').length >= 2, 120_000);
  await watcher!.stop();
  expect(ofPerson(events, personId)).toEqual([]);
  expect(events.some((e) => e.event === 'match')).toBe(false);
  expect(watcher!.stats.events.muted).toBeGreaterThanOrEqual(1);
}, 180_000);
