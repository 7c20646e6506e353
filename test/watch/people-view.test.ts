import { ClientError } from '../../shared/errors';
import { MemoryPeopleStore, type PeopleStore } from '../../shared/people';
import { PeopleIndex } from '../../shared/people/people-index';
import { isMuted, PeopleView } from '../../shared/watch/people-view';
import { Timers } from '../../shared/watch/timers';
import { waitFor } from './support/room';

// The watcher's view of a people store, without a room: a store that signals is re-read at once,
// one that does not within the 2 s re-read, and a failing store is reported once while the people
// last read stay in use.

const at = '2026-01-01T00:00:00.000Z';
const doc = (name: string) => ({ kind: 'vision-streaming-people' as const, version: 1 as const, collectionId: 'c', people: [{ person_id: 'p_1', name, faces: [{ face_id: 'f1', added_at: at, from: 'photo' as const }], not_faces: [] }] });

let timers: Timers;
let view: PeopleView | undefined;
beforeEach(() => (timers = new Timers()));
afterEach(() => {
  view?.close();
  timers.close();
});

function open(store: PeopleStore) {
  const errors: ClientError[] = [];
  const swaps: PeopleIndex[] = [];
  view = new PeopleView(store, 'c', (e) => errors.push(e), (i) => swaps.push(i));
  return { errors, swaps, ready: view.open(timers) };
}

test('a store that signals changed is re-read at once', async () => {
  const store = new MemoryPeopleStore();
  await store.update(() => doc('Anna'));
  const { swaps, ready } = open(store);
  await ready;
  expect(view!.index.personOf('f1')?.name).toBe('Anna');
  const before = swaps.length;
  await store.update(() => doc('Anne'));
  await waitFor('the rename', () => view!.index.personOf('f1')?.name === 'Anne', 1000);
  expect(swaps.length).toBeGreaterThan(before);
});

test('a store that does not signal is re-read within 2 s; a failing store is reported once and the last people stay', async () => {
  let current: unknown = doc('Anna');
  let failing = false;
  const store: PeopleStore = {
    name: 'people.json',
    load: () => {
      if (failing) throw Object.assign(new Error('EACCES: permission denied, open /secret/path'), { code: 'EACCES' });
      return current;
    },
    update: () => Promise.reject(new Error('unused')),
  };
  const { errors, ready } = open(store);
  await ready;
  current = doc('Anne');
  const t0 = Date.now();
  await waitFor('the re-read', () => view!.index.personOf('f1')?.name === 'Anne', 5000);
  expect(Date.now() - t0).toBeLessThan(5000);
  failing = true;
  await waitFor('the failure reported', () => errors.length > 0, 5000);
  await new Promise((r) => setTimeout(r, 4500));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({ code: 'people_store_failed' });
  expect(errors[0].message).toMatch(/EACCES/);
  expect(errors[0].message).not.toMatch(/secret/);
  expect(view!.index.personOf('f1')?.name).toBe('Anne');
  // Another collection's document is refused, naming the store.
  failing = false;
  current = { ...doc('Other'), collectionId: 'another' };
  await waitFor('the mismatch reported', () => errors.length > 1, 5000);
  expect(errors[1]).toMatchObject({ code: 'people_store_mismatch', message: expect.stringContaining('people.json') });
  expect(view!.index.personOf('f1')?.name).toBe('Anne');
}, 20_000);

test('ignore mutes by face id, label, person_id or name (case-insensitively)', () => {
  const labels = new Map([['f9', 'Label']]);
  const anna = { person_id: 'p_1', name: 'Anna Lee' };
  expect(isMuted({ ignore: new Set(['anna lee']), labels }, 'f1', anna)).toBe(true);
  expect(isMuted({ ignore: new Set(['p_1']), labels }, 'f1', anna)).toBe(true);
  expect(isMuted({ ignore: new Set(['f1']), labels }, 'f1', anna)).toBe(true);
  expect(isMuted({ ignore: new Set(['Label']), labels }, 'f9')).toBe(true);
  expect(isMuted({ ignore: new Set(['Anna']), labels }, 'f1', anna)).toBe(false);
  expect(isMuted({ ignore: new Set(['anna lee']), labels }, 'f1')).toBe(false);
  expect(isMuted({ labels }, 'f1', anna)).toBe(false);
});
