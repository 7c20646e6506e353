import { createHash } from 'node:crypto';
import { nameKey } from './document';
import type { FaceSource, PeopleDocument, Person, PersonFace } from './types';

/**
 * The people of a collection as rows of a data table, one row a face, so that users read and edit
 * names where they keep their other data (n8n's Data Tables page):
 * - kind `face`: a face of the person; kind `not`: a face that is not them;
 * - kind `person`: a person who has no face yet (its face_id is empty).
 * Every row carries the person's id and name; a table may hold several collections' people.
 */

/** The columns of a people table, in the order they are added. */
export const PEOPLE_COLUMNS = ['name', 'person_id', 'kind', 'face_id', 'from', 'added_at', 'collection_id'] as const;

/** One column of a people table. */
export type PeopleColumn = (typeof PEOPLE_COLUMNS)[number];

/** One row as the table keeps it (every value text). */
export type PeopleRow = Record<PeopleColumn, string>;

/** What a row is. */
export type RowKind = 'face' | 'not' | 'person';

const SOURCES: readonly FaceSource[] = ['photo', 'event', 'visitor', 'labels'];

/** The rows of a document, in its order: each person's faces, then their not-faces. */
export function documentRows(doc: PeopleDocument): PeopleRow[] {
  const rows: PeopleRow[] = [];
  for (const person of doc.people) {
    const base = { name: person.name, person_id: person.person_id, collection_id: doc.collectionId };
    for (const face of person.faces) rows.push({ ...base, kind: 'face', face_id: face.face_id, from: face.from, added_at: face.added_at });
    for (const face of person.not_faces) rows.push({ ...base, kind: 'not', face_id: face.face_id, from: face.from, added_at: face.added_at });
    if (person.faces.length === 0 && person.not_faces.length === 0) rows.push({ ...base, kind: 'person', face_id: '', from: '', added_at: '' });
  }
  return rows;
}

/**
 * What identifies a row: a face (or not-face) belongs to one person at most, so moving it to
 * another person, or making it a not-face, changes its row; a faceless person's row is the person's.
 */
export function rowKey(row: Pick<PeopleRow, 'kind' | 'person_id' | 'face_id'>): string {
  return row.kind === 'person' ? `person|${row.person_id}` : `face|${row.face_id}`;
}

/** A stored row read back, made whole: its n8n id and its values, or undefined when it holds no face or person of the collection. */
export interface ReadRow {
  id: number | string;
  row: PeopleRow;
  /** Which name wins among a person's rows: edited rows (renamed) over rows only ever inserted, then the latest. */
  nameRank: string;
}

/**
 * Reads n8n's rows for one collection. Rows typed by hand may leave out the collection (counted as
 * this one's), the person id (the person of the same name, or an id made from the name), the kind
 * (a face), where the face came from (a photo) and when (the row's creation). Rows of other
 * collections, and rows with neither a face nor a person, are left out.
 */
export function readRows(stored: readonly Record<string, unknown>[], collectionId: string): ReadRow[] {
  const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value).trim());
  const candidates = stored
    .map((r) => ({ id: r.id as number | string, createdAt: text(r.createdAt), nameRank: nameRank(text(r.createdAt), text(r.updatedAt)), get: (c: PeopleColumn) => text(r[c]) }))
    .filter((r) => r.get('collection_id') === '' || r.get('collection_id') === collectionId);
  const idOfName = new Map<string, string>();
  for (const r of candidates) if (r.get('person_id') !== '' && r.get('name') !== '') idOfName.set(nameKey(r.get('name')), r.get('person_id'));
  const out: ReadRow[] = [];
  for (const r of candidates) {
    const name = r.get('name');
    const personId = r.get('person_id') || (name === '' ? '' : (idOfName.get(nameKey(name)) ?? idFromName(name)));
    const kind = (['face', 'not', 'person'] as const).find((k) => k === r.get('kind').toLowerCase()) ?? (r.get('kind') === '' ? 'face' : undefined);
    if (personId === '' || kind === undefined || (kind !== 'person' && r.get('face_id') === '')) continue;
    const from = SOURCES.find((s) => s === r.get('from')) ?? (kind === 'person' ? '' : 'photo');
    const addedAt = kind === 'person' ? '' : r.get('added_at') || r.createdAt;
    const row: PeopleRow = { name, person_id: personId, kind, face_id: kind === 'person' ? '' : r.get('face_id'), from, added_at: addedAt, collection_id: collectionId };
    out.push({ id: r.id, row, nameRank: r.nameRank });
  }
  return out;
}

/** A person id for rows typed by hand with a name only: the same name gives the same id in every process. */
function idFromName(name: string): string {
  return `p_${createHash('sha256').update(nameKey(name)).digest('hex').slice(0, 32)}`;
}

/**
 * A rename changes rows, an added face inserts one: a row changed after its insertion carries the
 * newer name even when a writer that had not seen the rename inserted a row later. A user renames one
 * row on n8n's Data Tables page; the next write renames the person's other rows.
 */
function nameRank(createdAt: string, updatedAt: string): string {
  return `${updatedAt !== '' && updatedAt !== createdAt ? 1 : 0}|${updatedAt}`;
}

/**
 * The document the rows hold, or undefined when they hold nobody. People keep the order of their
 * first row; a person's name is that of the row ranked first by nameRank; a face listed twice counts once.
 */
export function rowsDocument(rows: readonly ReadRow[], collectionId: string): PeopleDocument | undefined {
  const people = new Map<string, { person: Person; named: string }>();
  const seen = new Set<string>();
  for (const { row, nameRank: rank } of rows) {
    let entry = people.get(row.person_id);
    if (!entry) {
      entry = { person: { person_id: row.person_id, name: row.name, faces: [], not_faces: [] }, named: rank };
      people.set(row.person_id, entry);
    } else if (row.name !== '' && (entry.person.name === '' || rank > entry.named)) {
      entry.person.name = row.name;
      entry.named = rank;
    }
    const key = rowKey(row);
    if (row.kind === 'person' || seen.has(key)) continue;
    seen.add(key);
    const face: PersonFace = { face_id: row.face_id, added_at: row.added_at, from: row.from as FaceSource };
    (row.kind === 'face' ? entry.person.faces : entry.person.not_faces).push(face);
  }
  if (people.size === 0) return undefined;
  return { kind: 'vision-streaming-people', version: 1, collectionId, people: [...people.values()].map((e) => e.person) };
}
