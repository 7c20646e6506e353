import { nameKey, readPeople } from '../people/document';
import type { PeopleDocument, PeopleStore } from '../people/types';
import type { HistoryQuery } from './types';

/** A person of the people as the history searches them: every visit of theirs, however it was kept. */
export interface PersonWho {
  person_id: string;
  name: string;
  /** Their faces: the visitor ids they were as strangers, the faces a watcher without people kept. */
  face_ids: string[];
}

/** The person a person_id (else a name, any case) names in a people document, with their faces; undefined when there is none. */
export function personWho(doc: PeopleDocument, ref: { person_id?: string; name?: string }): PersonWho | undefined {
  const key = ref.person_id === undefined && ref.name !== undefined ? nameKey(ref.name.trim()) : undefined;
  const p = doc.people.find((q) => (ref.person_id !== undefined ? q.person_id === ref.person_id : key !== undefined && nameKey(q.name) === key));
  return p ? { person_id: p.person_id, name: p.name, face_ids: p.faces.map((f) => f.face_id) } : undefined;
}

/** A search's `who` for a person: under their person_id, their visitor ids and their faces alone. */
export function whoOf(person: PersonWho): NonNullable<HistoryQuery['who']> {
  return { person_id: person.person_id, face_ids: person.face_ids };
}

/**
 * A host's search by person (person_id or name) widened with the people at hand: every visit of
 * that person, those they made as a stranger before being named and those a watcher without people
 * kept under one of their faces too. A person the people do not have (forgotten, or of another
 * host) is searched as the query says, by the id or name the visits carry.
 */
export async function personSearchQuery(query: HistoryQuery, people: PeopleStore, collectionId: string): Promise<HistoryQuery> {
  if (query.person_id === undefined && query.name === undefined) return query;
  const found = personWho(readPeople(await people.load(), collectionId, people), query);
  if (!found) return query;
  const rest: HistoryQuery = { ...query, who: whoOf(found) };
  delete rest.person_id;
  delete rest.name;
  return rest;
}
