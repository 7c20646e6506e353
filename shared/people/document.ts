import { InputError } from '../errors';
import { sealHolds, sealText } from '../util/seal';
import { PeopleError } from './errors';
import type { PeopleDocument, PeopleStore, Person, PersonFace } from './types';

/** Longest name of a person, in characters (after trimming). */
export const MAX_NAME = 100;
/** What a face id of the service looks like (UUID-like; no path or control characters, not overly long). */
export const FACE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
const PERSON_ID = /^p_[A-Za-z0-9-]{1,100}$/;
const SOURCES = new Set(['photo', 'event', 'visitor', 'labels']);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Characters that change how a name looks without showing themselves: zero-width ones (so
 * "Al\u200Bice" would pose as "Alice"), bidi marks, embeddings, overrides and isolates (which reorder
 * what is shown around them), the word joiner and invisible operators, and the byte-order mark.
 */
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

/** A document with nobody in it, for a collection. */
export function emptyPeople(collectionId: string): PeopleDocument {
  return { kind: 'vision-streaming-people', version: 1, collectionId, people: [] };
}

/**
 * A person's name checked, trimmed and in NFC (so one name is one string however it was typed);
 * an InputError naming `field` when it is empty, too long, or holds a control, zero-width or
 * bidi control character. Every host's names pass here.
 */
export function checkName(v: unknown, field: string): string {
  // Before trimming, which would take a byte-order mark at either end away unsaid.
  const hidden = typeof v === 'string' ? INVISIBLE.exec(v) : null;
  if (hidden) {
    const code = `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new InputError('invalid_input', `${field} holds an invisible or text-direction character (${code}) at position ${[...(v as string).slice(0, hidden.index)].length + 1}: it could make one name look like another`, { field, limit: NAME_RULE });
  }
  return basicName(v, field);
}

const NAME_RULE = '1 to 100 characters, no control, zero-width or bidi control characters';

/** The rule names had before invisible characters were refused: what a saved entry must keep, so a file written then still loads. */
function basicName(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new InputError('invalid_input', `${field} must be a name (a string)`, { field, limit: NAME_RULE });
  const name = v.trim().normalize('NFC');
  if (name === '') throw new InputError('invalid_input', `${field} is empty: a person needs a name`, { field, limit: NAME_RULE });
  if ([...name].length > MAX_NAME) throw new InputError('invalid_input', `${field} is ${[...name].length} characters long; names are at most ${MAX_NAME}`, { field, limit: NAME_RULE });
  if (CONTROL.test(name)) throw new InputError('invalid_input', `${field} holds a control character (a line break, tab, ...)`, { field, limit: NAME_RULE });
  return name;
}

/** Names compare case-insensitively (and without regard to accents' composition). */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLocaleLowerCase('en');
}

/** How errors name a store. */
export function storeName(store: Pick<PeopleStore, 'name'>): string {
  const name = typeof store.name === 'string' && store.name !== '' ? store.name.slice(0, 200) : undefined;
  return name ? `the people store ${name}` : 'the people store';
}

/**
 * Checks what a store holds and gives it as a document of `collectionId`: nothing saved (or the
 * empty document of a fresh store) is an empty directory; another collection's document, a broken
 * seal, or entries that break the directory's rules throw a PeopleError naming the store. Never quotes a value of the store.
 */
export function readPeople(raw: unknown, collectionId: string, store: Pick<PeopleStore, 'name' | 'key'>): PeopleDocument {
  const where = storeName(store);
  if (raw === undefined || raw === null) return emptyPeople(collectionId);
  const d = raw as Partial<PeopleDocument>;
  if (typeof d !== 'object' || d.kind !== 'vision-streaming-people' || d.version !== 1 || typeof d.collectionId !== 'string' || !Array.isArray(d.people)) {
    throw new PeopleError('people_store_invalid', `${where} holds something that is not a people list of this package`);
  }
  // A fresh store hands its first change an empty document that names no collection yet.
  if (d.collectionId === '' && d.people.length === 0) return emptyPeople(collectionId);
  if (d.collectionId !== collectionId) {
    throw new PeopleError('people_store_mismatch', `${where} belongs to another face collection, not to ${collectionId.slice(0, 80)}`);
  }
  const doc = d as PeopleDocument;
  if (store.key && !sealHolds(doc.seal, sealContent(doc), store.key)) {
    throw new PeopleError('people_store_untrusted', `${where} was not written with these credentials (its seal does not match); its people are not used`);
  }
  const wrong = entryProblem(doc.people);
  if (wrong) throw new PeopleError('people_store_invalid', `${where} has an entry that breaks the directory's rules (${wrong})`);
  return { kind: doc.kind, version: 1, collectionId, people: doc.people.map(copyPerson) };
}

/** The document as a store should save it: sealed when the store has a key. */
export function sealPeople(doc: PeopleDocument, key: Uint8Array | undefined): PeopleDocument {
  const out: PeopleDocument = { kind: 'vision-streaming-people', version: 1, collectionId: doc.collectionId, people: doc.people.map(copyPerson) };
  if (key) out.seal = sealText(sealContent(out), key);
  return out;
}

function sealContent(doc: Pick<PeopleDocument, 'collectionId' | 'people'>): string {
  const faces = (list: readonly PersonFace[]) => list.map((f) => [f.face_id, f.added_at, f.from]);
  return JSON.stringify([doc.collectionId, doc.people.map((p) => [p.person_id, p.name, faces(p.faces), faces(p.not_faces)])]);
}

function copyPerson(p: Person): Person {
  return { person_id: p.person_id, name: p.name, faces: p.faces.map((f) => ({ ...f })), not_faces: p.not_faces.map((f) => ({ ...f })) };
}

/** Why the entries cannot be used (undefined when they can). */
function entryProblem(people: readonly unknown[]): string | undefined {
  const ids = new Set<string>();
  const names = new Set<string>();
  const faces = new Set<string>();
  for (const [i, raw] of people.entries()) {
    const at = `person ${i + 1}`;
    const p = raw as Partial<Person>;
    if (typeof p !== 'object' || p === null) return `${at}: not an object`;
    if (typeof p.person_id !== 'string' || !PERSON_ID.test(p.person_id)) return `${at}: not a person id`;
    if (ids.has(p.person_id)) return `${at}: a person id listed twice`;
    let name: string;
    try {
      name = basicName(p.name, 'name');
    } catch {
      return `${at}: not a valid name`;
    }
    if (name !== (p.name as string).normalize('NFC')) return `${at}: a name with spaces around it`;
    if (names.has(nameKey(name))) return `${at}: a name listed twice`;
    if (!Array.isArray(p.faces) || !Array.isArray(p.not_faces)) return `${at}: no list of faces`;
    for (const f of [...p.faces, ...p.not_faces] as Partial<PersonFace>[]) {
      if (typeof f !== 'object' || f === null || typeof f.face_id !== 'string' || !FACE_ID.test(f.face_id)) return `${at}: not a face id`;
      if (typeof f.added_at !== 'string' || !Number.isFinite(Date.parse(f.added_at))) return `${at}: a time that is not a date`;
      if (typeof f.from !== 'string' || !SOURCES.has(f.from)) return `${at}: an unknown source of a face`;
      if (faces.has(f.face_id)) return `${at}: a face that belongs to someone else too`;
      faces.add(f.face_id);
    }
    ids.add(p.person_id);
    names.add(nameKey(name));
  }
  return undefined;
}
