import { InputError } from '../errors';
import type { ImageInput } from '../image';
import { PeopleIndex, personVerdict, readPeople, type PeopleStore } from '../people';
import type { VisionApi } from '../vision';
import type { HistoryQuery } from './types';

/** Default least score for a face to be taken for a face of the collection (the watcher's default threshold). */
export const DEFAULT_FACE_SEARCH_THRESHOLD = 0.7;

/** How many of the collection's nearest faces one compare asks for: enough for a person's faces to outrank a stranger's. */
const NEAREST_FACES = 10;

/** Who a photo's face is, as the history knows people: a person, a visitor (a face of the collection in no person), or nobody seen. */
export type FaceIdentity =
  | { kind: 'person'; person_id: string; name: string; face_id: string; score: number }
  | { kind: 'visitor'; visitor_id: string; score: number }
  | { kind: 'never_seen'; score: number };

/** What a face search needs: the collection the watcher compared against, and its people when it names them. */
export interface FaceSearchOptions {
  vision: Pick<VisionApi, 'compareWithCollection'>;
  collectionId: string;
  /** The collection's people: a face of a person is that person. Without it, every face of the collection is a visitor. */
  people?: Pick<PeopleStore, 'load' | 'name' | 'key'>;
  /** Least score for a match, 0..1 (default 0.7). */
  threshold?: number;
  signal?: AbortSignal;
}

/**
 * Who the face in `image` is, with the one compare the service does (the photo against the
 * collection): a person when a face of theirs scores at the threshold (and no face marked as not
 * them beats it), a visitor when a face in no person does, else never seen.
 */
export async function identifyFace(image: ImageInput, o: FaceSearchOptions): Promise<FaceIdentity> {
  const threshold = o.threshold ?? DEFAULT_FACE_SEARCH_THRESHOLD;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new InputError('invalid_input', 'the face search threshold must be a number from 0 to 1', { field: 'threshold', limit: '0 to 1' });
  }
  const compared = await o.vision.compareWithCollection(o.collectionId, image, { maxResults: NEAREST_FACES, signal: o.signal });
  const scores = compared.target.faces.map((f) => ({ face_id: f.faceId, score: f.score }));
  const index = o.people ? PeopleIndex.of(readPeople(await o.people.load(), o.collectionId, o.people)) : PeopleIndex.EMPTY;
  const verdict = personVerdict(scores, index, { threshold });
  if (verdict.kind === 'person') return { kind: 'person', person_id: verdict.person_id, name: verdict.name, face_id: verdict.face_id, score: verdict.score };
  if (verdict.kind === 'face') return { kind: 'visitor', visitor_id: verdict.face_id, score: verdict.score };
  return { kind: 'never_seen', score: verdict.score };
}

/** The search for an identity's visits (the rest of `query` kept: a day, a stream), or undefined for a face never seen. */
export function identityQuery(identity: FaceIdentity, query: HistoryQuery = {}): HistoryQuery | undefined {
  const { person_id: _p, name: _n, visitor_id: _v, visitor_ids: _vs, ...rest } = query;
  if (identity.kind === 'person') return { ...rest, person_id: identity.person_id };
  if (identity.kind === 'visitor') return { ...rest, visitor_id: identity.visitor_id };
  return undefined;
}
