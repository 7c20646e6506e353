import { createServer, type AddressInfo } from 'node:net';
import { readPeople } from '../../shared/people/document';
import { PeopleError } from '../../shared/people/errors';
import type { TableRequest } from '../../shared/people/table-api';
import { dataTableEntries } from '../../shared/people/table-api';
import { documentRows, readRows, rowsDocument } from '../../shared/people/table-rows';
import { TablePeopleStore } from '../../shared/people/table-store';
import type { PeopleDocument, Person } from '../../shared/people/types';
import { fetchTableRequest, startDataTables, type DataTables } from '../n8n/support/data-tables';

// The people of a collection in an n8n data table: the row mapping, and the store over a stand-in
// of n8n's public data table API on 127.0.0.1 (real HTTP, the API key in its header).

const KEY = 'n8n-api-key-for-tests';
const COLLECTION = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
let tables: DataTables;

beforeAll(async () => {
  tables = await startDataTables({ apiKey: KEY, pageLimit: 3 });
});

afterAll(async () => {
  await tables?.stop();
});

/** Requests of the stand-in's API, with the right key unless told. */
function request(baseUrl = tables.baseUrl, apiKey = KEY): TableRequest {
  return fetchTableRequest(baseUrl, apiKey);
}

/** A port nothing listens on: one a server had a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const face = (face_id: string, from: Person['faces'][number]['from'] = 'photo') => ({ face_id, added_at: '2026-11-20T10:00:00.000Z', from });

function eileen(): Person {
  return { person_id: 'p_0f8fad5b-d9cb-469f-a165-70867728950e', name: 'Eileen', faces: [face('f-1'), face('f-2', 'event')], not_faces: [face('n-1')] };
}

function doc(people: Person[]): PeopleDocument {
  return { kind: 'vision-streaming-people', version: 1, collectionId: COLLECTION, people };
}

/** The rows of people (every row but the collection's version row). */
const peopleRows = (tableId: string) => tables.rows(tableId).filter((r) => r.kind !== 'version');

const storeOn = (tableId: string, collectionId = COLLECTION) => new TablePeopleStore({ request: request(), tableId, collectionId });

describe('row mapping', () => {
  test('a document and its rows round-trip, one row a face, a faceless person one row of its own', () => {
    const nobody: Person = { person_id: 'p_1b4e28ba-2fa1-11d2-883f-0016d3cca427', name: 'Jo', faces: [], not_faces: [] };
    const original = doc([eileen(), nobody]);
    const rows = documentRows(original);
    expect(rows.map((r) => [r.kind, r.face_id, r.name])).toEqual([
      ['face', 'f-1', 'Eileen'],
      ['face', 'f-2', 'Eileen'],
      ['not', 'n-1', 'Eileen'],
      ['person', '', 'Jo'],
    ]);
    const stored = rows.map((r, i) => ({ ...r, id: i + 1, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' }));
    const back = rowsDocument(readRows(stored, COLLECTION), COLLECTION);
    expect(back).toEqual(original);
    // What the directory itself accepts.
    expect(readPeople(back, COLLECTION, {})).toEqual(original);
  });

  test('rows of another collection are left out; rows typed by hand are completed; the name edited last wins', () => {
    const t = (s: number) => `2026-11-20T10:00:0${s}.000Z`;
    const stored = [
      { id: 1, ...documentRows(doc([eileen()]))[0], createdAt: t(0), updatedAt: t(5) },
      { id: 2, ...documentRows(doc([eileen()]))[1], name: 'Eileen', createdAt: t(0), updatedAt: t(0) },
      { id: 3, ...documentRows(doc([eileen()]))[0], face_id: 'other', collection_id: 'another', createdAt: t(0), updatedAt: t(0) },
      { id: 4, name: 'Sam', face_id: 'f-9', createdAt: t(1), updatedAt: t(1) },
      { id: 5, name: 'Sam', face_id: 'f-10', createdAt: t(2), updatedAt: t(2) },
      { id: 6, name: '', face_id: 'f-11', createdAt: t(2), updatedAt: t(2) },
    ];
    stored[0].name = 'Eileen B.';
    const back = rowsDocument(readRows(stored, COLLECTION), COLLECTION)!;
    expect(back.people.map((p) => [p.name, p.faces.map((f) => f.face_id)])).toEqual([
      ['Eileen B.', ['f-1', 'f-2']],
      ['Sam', ['f-9', 'f-10']],
    ]);
    const sam = back.people[1];
    expect(sam.person_id).toMatch(/^p_[0-9a-f]{32}$/);
    expect(sam.faces[0]).toEqual({ face_id: 'f-9', from: 'photo', added_at: t(1) });
    expect(() => readPeople(back, COLLECTION, {})).not.toThrow();
  });
});

describe('TablePeopleStore', () => {
  test('the first change adds the missing columns; the saved people load again', async () => {
    const id = tables.create('People', ['name']);
    const store = storeOn(id);
    expect(await store.load()).toBeUndefined();
    const saved = await store.update((d) => {
      expect(d).toEqual({ kind: 'vision-streaming-people', version: 1, collectionId: '', people: [] });
      return doc([eileen()]);
    });
    expect(saved).toEqual(doc([eileen()]));
    expect(tables.count('POST', `/data-tables/${id}/columns`)).toBe(6);
    expect(peopleRows(id).map((r) => [r.person_id, r.name, r.kind, r.face_id, r.from, r.collection_id])).toEqual([
      [eileen().person_id, 'Eileen', 'face', 'f-1', 'photo', COLLECTION],
      [eileen().person_id, 'Eileen', 'face', 'f-2', 'event', COLLECTION],
      [eileen().person_id, 'Eileen', 'not', 'n-1', 'photo', COLLECTION],
    ]);
    expect(await storeOn(id).load()).toEqual(doc([eileen()]));
  });

  test('only what differs is written: a rename is one request, a moved face is changed in place, a removed face deleted', async () => {
    const id = tables.create('People');
    const store = storeOn(id);
    const sam: Person = { person_id: 'p_1b4e28ba-2fa1-11d2-883f-0016d3cca427', name: 'Sam', faces: [face('s-1')], not_faces: [] };
    await store.update(() => doc([eileen(), sam]));
    const ids = peopleRows(id).map((r) => r.id);
    const patches = tables.count('PATCH', '/rows/update');
    await store.update((d) => ({ ...d, people: d.people.map((p) => (p.name === 'Eileen' ? { ...p, name: 'Eileen B.' } : p)) }));
    // The rename, between taking the table's lease and giving it back.
    expect(tables.count('PATCH', '/rows/update')).toBe(patches + 3);
    // Merge Sam into Eileen: Sam's face row changes person, Sam is gone; no row is made again.
    await store.update((d) => {
      const [e, s] = d.people;
      return { ...d, people: [{ ...e, faces: [...e.faces, ...s.faces] }] };
    });
    expect(peopleRows(id).map((r) => r.id)).toEqual(ids);
    expect(new Set(peopleRows(id).map((r) => r.name))).toEqual(new Set(['Eileen B.']));
    await store.update((d) => ({ ...d, people: [{ ...d.people[0], faces: d.people[0].faces.filter((f) => f.face_id !== 'f-2') }] }));
    expect(peopleRows(id).map((r) => r.face_id)).toEqual(['f-1', 'n-1', 's-1']);
    expect(tables.count('DELETE', '/rows/delete')).toBe(1);
    // Rows are read page by page (3 a page here): everything comes back.
    expect((await store.load())!.people[0].faces.map((f) => f.face_id)).toEqual(['f-1', 's-1']);
  });

  test('two writers on one table lose nothing of each other; another collection in the same table stays apart', async () => {
    const id = tables.create('People');
    const a = storeOn(id);
    const b = storeOn(id);
    const person = (n: number): Person => ({ person_id: `p_${n}`, name: `Person ${n}`, faces: [face(`f-${n}`)], not_faces: [] });
    await Promise.all([1, 2, 3].map((n) => (n % 2 ? a : b).update((d) => ({ ...d, collectionId: COLLECTION, people: [...d.people, person(n)] }))));
    expect((await a.load())!.people.map((p) => p.name).sort()).toEqual(['Person 1', 'Person 2', 'Person 3']);
    const other = storeOn(id, 'another-collection');
    await other.update((d) => ({ ...d, collectionId: 'another-collection', people: [person(9)] }));
    expect((await a.load())!.people).toHaveLength(3);
    expect((await other.load())!.people.map((p) => p.name)).toEqual(['Person 9']);
  });

  test('two writers that read the same rows at once: one adds "Alice", the other finds her there and writes nothing', async () => {
    const id = tables.create('People');
    const alice = (n: number): Person => ({ person_id: `p_alice-${n}`, name: 'Alice', faces: [face(`a-${n}`)], not_faces: [] });
    const addAlice = (n: number) =>
      storeOn(id).update((d) => {
        if (d.people.some((p) => p.name === 'Alice')) throw new Error(`Alice is there (writer ${n})`);
        return { ...d, collectionId: COLLECTION, people: [...d.people, alice(n)] };
      });
    // Every read answered in pairs: both writers see the same table, as two workers can.
    tables.holdReads(2);
    try {
      const outcomes = await Promise.allSettled([addAlice(1), addAlice(2)]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(String((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/Alice is there/);
    } finally {
      tables.holdReads(0);
    }
    expect(peopleRows(id).map((r) => r.name)).toEqual(['Alice']);
    // One version row is left, its lease given back.
    expect(tables.rows(id).filter((r) => r.kind === 'version')).toEqual([expect.objectContaining({ from: '', added_at: '', collection_id: COLLECTION })]);
  });

  test('a lease held by another writer: people_conflict after the tries, nothing written; a lease past its end is taken over', async () => {
    const id = tables.create('People');
    await storeOn(id).update(() => doc([eileen()]));
    const before = peopleRows(id);
    // Another writer holds the lease for a minute (a worker in the middle of its write).
    tables.edit(id, (r) => r.kind === 'version', { from: 'another-writer', added_at: new Date(Date.now() + 60_000).toISOString() });
    const busy = new TablePeopleStore({ request: request(), tableId: id, collectionId: COLLECTION, attempts: 3 });
    const refused = await busy.update((d) => ({ ...d, people: [] })).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(PeopleError);
    expect(refused).toMatchObject({ code: 'people_conflict', retryable: true, message: expect.stringMatching(/changed by another writer each of 3 times.*nothing was written/) });
    expect(peopleRows(id)).toEqual(before);
    // That writer died: once its lease has ended, the next writer goes on.
    tables.edit(id, (r) => r.kind === 'version', { added_at: new Date(Date.now() - 1000).toISOString() });
    await busy.update((d) => ({ ...d, people: [] }));
    expect(peopleRows(id)).toEqual([]);
  });

  test('a name edited on the Data Tables page is the name; the next write renames the other rows', async () => {
    const id = tables.create('People');
    const store = storeOn(id);
    await store.update(() => doc([eileen()]));
    tables.edit(id, (r) => r.face_id === 'f-2', { name: 'Eileen Collins' });
    expect((await store.load())!.people[0].name).toBe('Eileen Collins');
    await store.update((d) => d);
    expect(new Set(peopleRows(id).map((r) => r.name))).toEqual(new Set(['Eileen Collins']));
  });

  test('a change that throws writes nothing; a document of another collection is refused', async () => {
    const id = tables.create('People');
    const store = storeOn(id);
    await store.update(() => doc([eileen()]));
    const before = peopleRows(id);
    await expect(store.update(() => {
      throw new Error('no');
    })).rejects.toThrow('no');
    await expect(store.update((d) => ({ ...d, collectionId: 'elsewhere' }))).rejects.toMatchObject({ code: 'people_store_mismatch' });
    expect(peopleRows(id)).toEqual(before);
    // The lease was given back each time: the next writer goes on at once.
    expect(tables.rows(id).find((r) => r.kind === 'version')).toMatchObject({ from: '', added_at: '' });
  });

  test('a refused API key and an unknown table are PeopleErrors that say what to check, without the key', async () => {
    const id = tables.create('People');
    const wrong = new TablePeopleStore({ request: request(tables.baseUrl, 'not-the-key-1234'), tableId: id, collectionId: COLLECTION });
    const refused = await wrong.load().then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(PeopleError);
    expect(refused).toMatchObject({ code: 'people_store_failed', status: 401, retryable: false });
    expect((refused as Error).message).toMatch(/HTTP 401.*n8n API credential/);
    expect((refused as Error).message).not.toContain('not-the-key-1234');
    await expect(storeOn('missing').load()).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/Could not read the rows of the data table missing: HTTP 404\. Check the table's ID/) });
    const down = new TablePeopleStore({ request: request(`http://127.0.0.1:${await closedPort()}/api/v1`), tableId: id, collectionId: COLLECTION });
    await expect(down.load()).rejects.toMatchObject({ code: 'people_store_failed', retryable: true, message: expect.stringMatching(/could not be reached \(ECONNREFUSED\)/) });
  });

  test('the tables for a picker, filtered by name', async () => {
    tables.create('Front door people');
    const entries = await dataTableEntries(request(), 'front DOOR');
    expect(entries).toEqual([expect.objectContaining({ name: 'Front door people', value: expect.any(String), description: expect.stringContaining('id') })]);
  });
});
