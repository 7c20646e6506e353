/**
 * Every statement of the history, written once for both engines with `$1, $2…` placeholders (the
 * SQLite engine turns them into `?1, ?2…`). Only these constant texts and the fixed fragments below
 * become SQL: every value a caller gives is a parameter.
 */

/** A statement and its parameters. */
export interface SqlStatement {
  text: string;
  params: SqlValue[];
}

/** What a parameter may be in both engines. */
export type SqlValue = string | number | null;

/** The visit columns, in the order VISIT_COLUMNS lists them. */
export const VISIT_COLUMN_NAMES = [
  'visit_id',
  'kind',
  'person_id',
  'name',
  'name_key',
  'visitor_id',
  'face_id',
  'label',
  'room_id',
  'stream_id',
  'stream_label',
  'arrived_at',
  'left_at',
  'ends_at',
  'duration_s',
  'best_score',
  'quality',
  'updated_at',
] as const;

/** A visit row's column name. */
export type VisitColumn = (typeof VISIT_COLUMN_NAMES)[number];

const VISIT_COLUMNS = VISIT_COLUMN_NAMES.join(', ');
const VISIT_VALUES = VISIT_COLUMN_NAMES.map((_, i) => `$${i + 1}`).join(', ');
/** Inserts a visit: parameters in VISIT_COLUMN_NAMES order. */
export const INSERT_VISIT_SQL = `INSERT INTO visits (${VISIT_COLUMNS}) VALUES (${VISIT_VALUES})`;

/** One visit by id. */
export const SELECT_VISIT_SQL = `SELECT ${VISIT_COLUMNS} FROM visits WHERE visit_id = $1`;

/** Appends an event to a visit. */
export const INSERT_EVENT_SQL = 'INSERT INTO visit_events (visit_id, event, event_at, score, reason, face_id) VALUES ($1, $2, $3, $4, $5, $6)';

/** Names a media file on a visit, replacing that kind's earlier one. */
export const UPSERT_MEDIA_SQL =
  'INSERT INTO media (visit_id, kind, name, bytes, mime, created_at) VALUES ($1, $2, $3, $4, $5, $6) ' +
  'ON CONFLICT (visit_id, kind) DO UPDATE SET name = excluded.name, bytes = excluded.bytes, mime = excluded.mime, created_at = excluded.created_at';

/** A visit's media of one kind. */
export const SELECT_MEDIA_OF_KIND_SQL = 'SELECT visit_id, kind, name, bytes, mime FROM media WHERE visit_id = $1 AND kind = $2';

/** Removes one media row. */
export const DELETE_MEDIA_SQL = 'DELETE FROM media WHERE visit_id = $1 AND kind = $2';

/** The longest visit span written so far (ms). */
export const SELECT_LONGEST_SQL = "SELECT meta_value FROM history_meta WHERE meta_key = 'longest_visit_ms'";

/** Raises the longest visit span to $1 when it is longer. */
export const RAISE_LONGEST_SQL = "UPDATE history_meta SET meta_value = $1 WHERE meta_key = 'longest_visit_ms' AND meta_value < $1";

/** The total size of the media kept. */
export const SELECT_MEDIA_TOTAL_SQL = 'SELECT COALESCE(SUM(bytes), 0) AS total FROM media';

/** The oldest visits' media first (by arrival), a batch at a time: what a sweep by size removes. */
export const SELECT_OLDEST_MEDIA_SQL =
  'SELECT m.visit_id, m.kind, m.name, m.bytes, m.mime FROM media m JOIN visits v ON v.visit_id = m.visit_id ORDER BY v.arrived_at, m.visit_id, m.kind LIMIT $1';

/** Visits that ended before $1 (ms), oldest first, a batch at a time: what a sweep by age removes. */
export const SELECT_EXPIRED_VISITS_SQL = 'SELECT visit_id FROM visits WHERE arrived_at < $1 AND ends_at < $1 ORDER BY arrived_at LIMIT $2';

/** Visits of a person, a batch at a time. */
export const SELECT_PERSON_VISITS_SQL = 'SELECT visit_id FROM visits WHERE person_id = $1 LIMIT $2';

/** Visits of a remembered visitor, a batch at a time. */
export const SELECT_VISITOR_VISITS_SQL = 'SELECT visit_id FROM visits WHERE visitor_id = $1 LIMIT $2';

/** Visits kept under a face id (the face that matched), a batch at a time. */
export const SELECT_FACE_VISITS_SQL = 'SELECT visit_id FROM visits WHERE face_id = $1 LIMIT $2';

/** `IN ($first, $first+1, …)` for `count` parameters. */
export function inList(first: number, count: number): string {
  return `(${Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ')})`;
}

/** The events of these visits, in the order they were written. */
export function selectEventsSql(count: number): string {
  return `SELECT visit_id, event, event_at, score, reason, face_id FROM visit_events WHERE visit_id IN ${inList(1, count)} ORDER BY visit_id, event_id`;
}

/** The media of these visits. */
export function selectMediaSql(count: number): string {
  return `SELECT visit_id, kind, name, bytes, mime FROM media WHERE visit_id IN ${inList(1, count)}`;
}

/** Removes these visits' rows: events, media, then the visits themselves. */
export function deleteVisitsSql(count: number): string[] {
  const ids = inList(1, count);
  return [`DELETE FROM visit_events WHERE visit_id IN ${ids}`, `DELETE FROM media WHERE visit_id IN ${ids}`, `DELETE FROM visits WHERE visit_id IN ${ids}`];
}

/** A search's filters, as checked (times in ms; the cursor decoded). */
export interface SearchFilters {
  person_id?: string;
  name_key?: string;
  visitor_ids?: string[];
  /** Someone's visits however kept: person_id, or visitor_id or face_id one of the face ids. */
  who?: { person_id?: string; face_ids: string[] };
  stream_id?: string;
  room_id?: string;
  kind?: string;
  since?: number;
  until?: number;
  /** The longest visit span (ms) saved, with `since`: how far before it a visit that has left can have arrived. */
  longest_ms?: number;
  cursor?: { arrived_at: number; visit_id: string };
  /** Rows to read. */
  take: number;
}

/**
 * Which part of a search by time range: `recent`, the visits that arrived from `since` minus the
 * longest span on (a bounded range on an arrival index); `open-before`, the visits that go on and
 * arrived before that (through the index of open visits). Every `recent` row arrived after every
 * `open-before` row, so a page is the first, then the second. Without `since` there is one part: `recent`.
 */
export type SearchPart = 'recent' | 'open-before';

/**
 * A search's statement: a fixed fragment per filter given, each value a parameter, newest first
 * with the visit id breaking ties so a cursor resumes exactly where the page ended.
 */
export function searchSql(f: SearchFilters, part: SearchPart = 'recent'): SqlStatement {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const param = (value: SqlValue): string => {
    params.push(value);
    return `$${params.length}`;
  };
  // In the open part `col || ''` keeps the planner off the column's index (in both engines) and on
  // the small index of open visits; NULL || '' is NULL, so the comparison means the same.
  const col = (name: string): string => (part === 'open-before' ? `${name} || ''` : name);
  if (f.person_id !== undefined) where.push(`${col('person_id')} = ${param(f.person_id)}`);
  if (f.name_key !== undefined) where.push(`${col('name_key')} = ${param(f.name_key)}`);
  if (f.visitor_ids !== undefined) {
    if (f.visitor_ids.length === 1) where.push(`${col('visitor_id')} = ${param(f.visitor_ids[0]!)}`);
    else where.push(`${col('visitor_id')} IN (${f.visitor_ids.map((v) => param(v)).join(', ')})`);
  }
  if (f.who !== undefined) {
    const any: string[] = [];
    if (f.who.person_id !== undefined) any.push(`${col('person_id')} = ${param(f.who.person_id)}`);
    if (f.who.face_ids.length > 0) {
      // Each face id is one parameter, named in both lists.
      const ids = `(${f.who.face_ids.map((v) => param(v)).join(', ')})`;
      any.push(`${col('visitor_id')} IN ${ids}`, `${col('face_id')} IN ${ids}`);
    }
    if (any.length === 0) throw new Error('a search by who needs a person id or a face id');
    where.push(`(${any.join(' OR ')})`);
  }
  if (f.stream_id !== undefined) where.push(`${col('stream_id')} = ${param(f.stream_id)}`);
  if (f.room_id !== undefined) where.push(`room_id = ${param(f.room_id)}`);
  if (f.kind !== undefined) where.push(`kind = ${param(f.kind)}`);
  if (f.until !== undefined) where.push(`arrived_at < ${param(f.until)}`);
  if (f.since !== undefined) {
    const lower = f.since - (f.longest_ms ?? 0);
    if (part === 'recent') {
      where.push(`arrived_at >= ${param(lower)}`);
      where.push(`(ends_at >= ${param(f.since)} OR left_at IS NULL)`);
    } else {
      where.push('left_at IS NULL');
      where.push(`arrived_at < ${param(lower)}`);
    }
  }
  if (f.cursor !== undefined) {
    const at = param(f.cursor.arrived_at);
    where.push(`(arrived_at < ${at} OR (arrived_at = ${at} AND visit_id < ${param(f.cursor.visit_id)}))`);
  }
  const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return { text: `SELECT ${VISIT_COLUMNS} FROM visits${clause} ORDER BY arrived_at DESC, visit_id DESC LIMIT ${param(f.take)}`, params };
}
