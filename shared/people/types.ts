import type { ImageInput } from '../image';

/** Where a face of a person came from. */
export type FaceSource = 'photo' | 'event' | 'visitor' | 'labels';

/** One face of the collection that belongs to a person (as one of theirs, or as one that is not them). */
export interface PersonFace {
  face_id: string;
  /** When it was added (ISO 8601). */
  added_at: string;
  from: FaceSource;
}

/** Someone known: one name over any number of faces of the collection. */
export interface Person {
  /** Made by the package (`p_` + a random UUID); never changes. */
  person_id: string;
  /** 1..100 characters, no control characters, unique in the directory (case-insensitively). */
  name: string;
  /** Faces of this person. */
  faces: PersonFace[];
  /** Faces of others that were taken for this person: a face more like one of these is not them. */
  not_faces: PersonFace[];
}

/** What a people store keeps: the people of one collection. */
export interface PeopleDocument {
  kind: 'vision-streaming-people';
  version: 1;
  collectionId: string;
  people: Person[];
  /** HMAC-SHA256 (hex) of the collection and the people under the store's key, when the store has one. */
  seal?: string;
}

/**
 * Where the people are kept: memory, a file (the command line), an n8n data table. `load` gives
 * the saved document (undefined when nothing is saved yet). `update` applies a change against the
 * latest saved state atomically (a file store locks, a table store writes a row diff), so two
 * writers lose nothing; when nothing is saved yet the change gets an empty document whose
 * collectionId is ''. A change that throws saves nothing and update rejects with its error.
 */
export interface PeopleStore {
  /** How errors name the store (a file's path, "data table people"); default "the people store". */
  readonly name?: string;
  /** A host's secret, kept outside the document: what is saved is sealed with it and a document whose seal does not match is refused. */
  readonly key?: Uint8Array;
  load(): Promise<unknown> | unknown;
  update(change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument>;
  /** Optional: a store that can tell of a change (another writer) signals `changed`; watchers re-load then, else every 2 s. */
  on?(event: 'changed', listener: () => void): unknown;
  off?(event: 'changed', listener: () => void): unknown;
}

/** A person named by id or by name (names match case-insensitively). */
export type PersonRef = { person_id: string } | { name: string };

/** A person as list() shows them: counts of faces, and the face ids. */
export interface PersonSummary {
  person_id: string;
  name: string;
  /** Number of faces. */
  faces: number;
  /** Number of not-faces. */
  not_faces: number;
  face_ids: string[];
  /** When the person's first face was added (ISO 8601); null for a person without faces. */
  added_at: string | null;
}

/** What list() gives. */
export interface PeopleList {
  collection_id: string;
  people: PersonSummary[];
  /** Faces the collection holds now (people's, not-faces, visitors and any other). */
  faces_in_collection: number;
  capacity: number;
  room_left: number;
}

/** The outcome of one photo given to addPerson/addFace/notThisPerson. */
export type PhotoResult =
  | { index: number; status: 'added'; face_id: string; quality: PhotoQuality; warning?: string }
  | { index: number; status: 'refused'; reason: string; code: string };

/** The face's quality in the photo, as the watcher measures it (`shared/watch/quality.ts`). */
export interface PhotoQuality {
  face_px: number;
  sharpness: number;
  brightness: number;
  greyscale: boolean;
  direction: 'front' | 'left' | 'right' | null;
}

/** What addPerson takes. */
export interface AddPersonInput {
  name: string;
  /** Photos of the person, each with one face (with several, the largest is taken). */
  images?: ImageInput[];
  /** A remembered visitor who is this person: their face moves into the person. */
  visitorId?: string;
}

/** What addPerson gives. */
export interface AddPersonResult {
  person: Person;
  results: PhotoResult[];
}

/** What addFace takes: a photo, or a remembered visitor's face. */
export interface AddFaceInput {
  person: PersonRef;
  image?: ImageInput;
  visitorId?: string;
  /** Where the photo came from (default 'photo'; 'event' for an event's face). */
  from?: FaceSource;
}

/** What addFace and notThisPerson give. */
export interface AddFaceResult {
  person: Person;
  result: PhotoResult;
}

/** What forget gives: what was removed, and what is left when a call failed part-way. */
export interface ForgetReceipt {
  person_id: string;
  name: string;
  removed_faces: string[];
  removed_not_faces: string[];
  removed_visitors: string[];
  /** With a history: the visits of the person (and of the strangers they were) erased from it. */
  removed_visits?: number;
  /** With a history: their face crops, snapshots and clips removed from its media folder. */
  removed_media?: number;
  forgotten_at: string;
  /** The person was not (or no longer) in the directory. */
  already_forgotten?: true;
  /** Faces still in the collection after a failure: forget again to finish (the person stays until then). */
  left?: string[];
  /**
   * With a history: its second erase, after the faces left, failed (the first one, before, had
   * succeeded): visits written while forget ran may remain. Forget again by person_id erases those
   * kept under the person.
   */
  history_error?: { code: string; message: string };
}

/** What check takes. */
export interface CheckOptions {
  /** Take the orphans out of the collection too (default: only list them). */
  remove?: boolean;
  /** Face ids of remembered visitors the directory's visitor store does not hold (a host's other stores). */
  visitorFaceIds?: Iterable<string>;
}

/** What check gives: faces of the collection nothing records, and which of them were removed. */
export interface CheckResult {
  collection_id: string;
  faces_in_collection: number;
  /** Faces no person, not-face or visitor records. */
  orphans: Array<{ face_id: string }>;
  /** Orphans taken out of the collection (with `remove`). */
  removed: string[];
  /** Orphans whose removal failed: check again to finish. */
  left?: string[];
}

/** What removeFace gives. */
export interface RemoveFaceResult {
  person_id: string;
  name: string;
  face_id: string;
  removed: 'face' | 'not_face';
}

/** What merge gives. */
export interface MergeResult {
  person: Person;
  /** The person merged in, gone now. */
  merged: { person_id: string; name: string };
}

/** What importLabels gives: one entry a name. */
export interface ImportResult {
  people: { person_id: string; name: string; created: boolean; added_faces: string[] }[];
}
