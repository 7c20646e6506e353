import type { FaceQuality, VisitKind } from '../watch/events';

/**
 * The history's contract: what a kept visit is, how it is searched and erased, and the store both
 * engines (SQLite through node:sqlite, PostgreSQL through pg) implement with one schema.
 */

/** A picture or clip of a visit, kept as a file in the history's media folder. */
export type MediaKind = 'face' | 'snapshot' | 'clip';

/** A media file as a row names it: its name inside the media folder (never a path from outside), size and type. */
export interface MediaRef {
  /** File name relative to the media folder (e.g. `2026/11/28/<visit_id>-face.jpg`). */
  name: string;
  bytes: number;
  mime: string;
}

/** An event of a visit, as kept (no pictures: those are the visit's media). */
export interface VisitEventRecord {
  event: 'arrived' | 'match' | 'unknown' | 'left' | 'clip';
  time: string;
  score?: number | null;
  /** For `unknown`: why (not_comparable, not_person); for `left`: the left reason; for `clip`: its error code. */
  reason?: string;
  face_id?: string;
}

/** A visit as the history keeps it. Times are ISO 8601 (UTC). */
export interface VisitRecord {
  visit_id: string;
  kind: VisitKind;
  person_id: string | null;
  name: string | null;
  visitor_id: string | null;
  face_id: string | null;
  label: string | null;
  room_id: string;
  stream_id: string;
  stream_label: string | null;
  arrived_at: string;
  /** Null while the visit goes on. */
  left_at: string | null;
  duration_s: number | null;
  best_score: number | null;
  quality: FaceQuality | null;
  face: MediaRef | null;
  snapshot: MediaRef | null;
  clip: MediaRef | null;
  events: VisitEventRecord[];
  updated_at: string;
}

/** What the recorder writes as a visit goes: the first write creates the row, later ones update it (by visit_id). */
export type VisitPatch = Partial<Omit<VisitRecord, 'visit_id' | 'events' | 'updated_at'>> & {
  visit_id: string;
  /** Appended to the visit's events. */
  events?: VisitEventRecord[];
};

/** A search. Every field is optional; times are ISO 8601; newest first. */
export interface HistoryQuery {
  person_id?: string;
  /** Matched exactly (after NFC), case-insensitively. */
  name?: string;
  visitor_id?: string;
  /** Visits of any of these visitor ids (what a face search resolves a stranger to). */
  visitor_ids?: string[];
  /**
   * Every visit of someone, however it was kept: under `person_id`, as the remembered stranger
   * they were (`visitor_id` one of `face_ids`), or by a face alone (`face_id` one of them: a
   * watcher without people). What a search by face or by a person of the people gives; at least
   * one of the two.
   */
  who?: { person_id?: string; face_ids?: string[] };
  stream_id?: string;
  room_id?: string;
  kind?: VisitKind;
  /** Visits that overlap [since, until). */
  since?: string;
  until?: string;
  /** 1..1000, default 50. */
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

/** A page of visits, newest first, and the cursor of the next page (absent on the last). */
export interface HistoryPage {
  visits: VisitRecord[];
  next?: string;
}

/** Whose visits an erase removes: at least one of the three. */
export interface EraseTarget {
  person_id?: string;
  /** Visits kept under these visitor ids (the strangers that became the person). */
  visitor_ids?: string[];
  /** Visits kept under these face ids (`face_id`: the collection face that matched). */
  face_ids?: string[];
}

/** What an erase or delete removed. */
export interface EraseReceipt {
  removed_visits: number;
  removed_media: number;
}

/** Retention settings: by age and by the media's total size, oldest first. */
export interface RetentionPolicy {
  /** Default 30. */
  maxAgeDays: number;
  /** Default 2 GB. */
  maxMediaBytes: number;
}

/** What a retention sweep removed. */
export interface SweepReceipt extends EraseReceipt {
  /** Media files removed to stay under maxMediaBytes (the rows stay, with that media gone). */
  removed_media_for_size: number;
  freed_bytes: number;
  time: string;
}

/** The store both engines implement. Every call is parameterised SQL; nothing from a query becomes SQL text. */
export interface HistoryStore {
  readonly engine: 'sqlite' | 'postgres';
  /** Inserts the visit or updates the fields given (events appended). */
  writeVisit(patch: VisitPatch): Promise<void>;
  /** Stores media bytes in the media folder and names them on the visit (replacing that kind's earlier file). */
  putMedia(visitId: string, kind: MediaKind, bytes: Buffer, mime: string): Promise<MediaRef>;
  /** Absolute path of a media file of this history (for hosts that hand out paths). */
  mediaPath(ref: MediaRef): string;
  readMedia(ref: MediaRef): Promise<Buffer>;
  get(visitId: string): Promise<VisitRecord | undefined>;
  search(query: HistoryQuery): Promise<HistoryPage>;
  /** One visit and its media. */
  deleteVisit(visitId: string): Promise<EraseReceipt>;
  /**
   * Every visit (and its media) of the person, of the visitor ids given, and of the face ids given
   * (visits a watcher without people kept under the face that matched): what forget erases.
   */
  erase(who: EraseTarget): Promise<EraseReceipt>;
  /** Removes what the policy lets go (media first, then rows); `now` for tests. */
  sweep(policy: RetentionPolicy, now?: Date): Promise<SweepReceipt>;
  close(): Promise<void>;
}
