import { InputError } from '../errors';
import type { ImageInput } from '../image';
import { readPeople } from '../people/document';
import { PeopleIndex } from '../people/people-index';
import type { PeopleStore } from '../people/types';
import { personVerdict } from '../people/verdict';
import type { VisionApi } from '../vision';
import { personWho, whoOf } from './person-search';
import type { HistoryPage, HistoryQuery, HistoryStore } from './types';

/** Who a photo's face is, as the history searches them: a person, a remembered stranger (a face in no person), or never seen. */
export type FaceWho =
  | { kind: 'person'; person_id: string; name: string; face_id: string; score: number }
  | { kind: 'visitor'; visitor_id: string; score: number }
  | { kind: 'never_seen'; score: number };

/** What a search by face takes. */
export interface FaceSearchInput {
  vision: Pick<VisionApi, 'compareWithCollection'>;
  collectionId: string;
  /** The people: a face of a person is that person (else a face the collection knows is searched as a visitor). */
  people?: PeopleStore;
  history: HistoryStore;
  /** The photo, or an event's face crop. */
  image: ImageInput;
  /** Least similarity for the face to be someone (default 0.7, as the watcher's). */
  threshold?: number;
  /** More of the search (time range, stream, paging); who is the face's. */
  query?: Omit<HistoryQuery, 'person_id' | 'name' | 'visitor_id' | 'visitor_ids' | 'who'>;
  signal?: AbortSignal;
}

/**
 * Who a face is and their visits: one compare of the photo with the collection (the service's only
 * search by face), its verdict as the watcher makes it (people, not-faces, the threshold), then the
 * history's visits of that person or visitor, newest first: a person's under their person_id, as
 * the strangers they were (their faces' visitor ids) and under their faces alone (a watcher without
 * people); a visitor's under the visitor id and that face alone. A face no one in the collection
 * matches is `never_seen` with no visits.
 */
export async function searchByFace(input: FaceSearchInput): Promise<{ who: FaceWho; page: HistoryPage }> {
  const threshold = input.threshold ?? 0.7;
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) throw new InputError('invalid_input', 'threshold must be a number in 0..1', { field: 'threshold', limit: '0..1' });
  const raw = input.people ? await input.people.load() : undefined;
  const doc = raw === undefined || raw === null ? undefined : readPeople(raw, input.collectionId, input.people!);
  const index = doc === undefined ? PeopleIndex.EMPTY : PeopleIndex.of(doc);
  const result = await input.vision.compareWithCollection(input.collectionId, input.image, { maxResults: 20, ...(input.signal ? { signal: input.signal } : {}) });
  const scores = result.target.faces.map((f) => ({ face_id: f.faceId, score: f.score }));
  const verdict = personVerdict(scores, index, { threshold });
  let who: FaceWho;
  if (verdict.kind === 'person') who = { kind: 'person', person_id: verdict.person_id, name: verdict.name, face_id: verdict.face_id, score: verdict.score };
  // A face of the collection in no person: the watcher enrols a remembered stranger under that id.
  else if (verdict.kind === 'face') who = { kind: 'visitor', visitor_id: verdict.face_id, score: verdict.score };
  else return { who: { kind: 'never_seen', score: verdict.score }, page: { visits: [] } };
  // The verdict came from this document: the person is in it, with the faces they hold.
  const person = who.kind === 'person' ? personWho(doc!, { person_id: who.person_id }) : undefined;
  const query: HistoryQuery = { ...input.query, who: person ? whoOf(person) : who.kind === 'person' ? { person_id: who.person_id } : { face_ids: [who.visitor_id] } };
  return { who, page: await input.history.search(query) };
}
