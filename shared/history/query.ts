import { InputError } from '../errors';
import { nameKey } from '../people/document';
import type { HistoryQuery, MediaKind } from './types';
import type { VisitKind } from '../watch/events';

/** Visit kinds a visit and a search may name. */
export const VISIT_KINDS: readonly VisitKind[] = ['person', 'visitor', 'stranger'];

/** Media kinds a visit may have. */
export const MEDIA_KINDS: readonly MediaKind[] = ['face', 'snapshot', 'clip'];

/** Default and largest page. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/** Longest id or name kept or searched. */
export const MAX_ID_LENGTH = 200;

/** Most visitor ids (or face ids) in one search or erase: a collection holds 1000 faces. */
export const MAX_VISITOR_IDS = 1000;

const ISO_RULE = 'an ISO 8601 date (2026-11-28) or date and time with a zone (2026-11-28T09:30:00Z)';
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** A search as checked: times in ms, the name as compared, the cursor decoded. */
export interface CheckedQuery {
  person_id?: string;
  name_key?: string;
  visitor_ids?: string[];
  who?: { person_id?: string; face_ids: string[] };
  stream_id?: string;
  room_id?: string;
  kind?: VisitKind;
  since?: number;
  until?: number;
  limit: number;
  cursor?: { arrived_at: number; visit_id: string };
}

/** An ISO 8601 time as ms; a date alone is its midnight UTC; a time needs its zone, so that no host's local time decides what is found. */
export function parseIsoTime(value: unknown, field: string): number {
  const match = typeof value === 'string' ? ISO.exec(value) : null;
  const ms = match ? Date.parse(value as string) : NaN;
  if (!match || !Number.isFinite(ms) || !realDate(Number(match[1]), Number(match[2]), Number(match[3])) || Number(match[4] ?? 0) > 23 || Number(match[5] ?? 0) > 59 || Number(match[6] ?? 0) > 59) {
    throw new InputError('invalid_input', `${field} must be ${ISO_RULE}; got ${describe(value)}`, { field, limit: ISO_RULE });
  }
  return ms;
}

/** Date.parse rolls 2026-02-30 over into March: the day must exist in its month. */
function realDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** A non-empty id or name of at most MAX_ID_LENGTH characters. */
export function checkId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_ID_LENGTH) {
    throw new InputError('invalid_input', `${field} must be a non-empty string of at most ${MAX_ID_LENGTH} characters; got ${describe(value)}`, { field, limit: `1 to ${MAX_ID_LENGTH} characters` });
  }
  return value;
}

/** A visit kind. */
export function checkKind(value: unknown, field = 'kind'): VisitKind {
  if (!VISIT_KINDS.includes(value as VisitKind)) {
    throw new InputError('invalid_input', `${field} must be one of ${VISIT_KINDS.join(', ')}; got ${describe(value)}`, { field, limit: VISIT_KINDS.join(', ') });
  }
  return value as VisitKind;
}

/** A list of visitor ids (1 to MAX_VISITOR_IDS). */
export function checkVisitorIds(value: unknown, field = 'visitor_ids', what = 'visitor ids'): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_VISITOR_IDS) {
    throw new InputError('invalid_input', `${field} must be a list of 1 to ${MAX_VISITOR_IDS} ${what}`, { field, limit: `1 to ${MAX_VISITOR_IDS} ids` });
  }
  return value.map((v, i) => checkId(v, `${field}[${i}]`));
}

/** A `who` of a search: a person id and/or face ids (0 to MAX_VISITOR_IDS), at least one of them. */
export function checkWho(value: unknown, field = 'who'): { person_id?: string; face_ids: string[] } {
  const rule = '{ person_id?, face_ids? } with a person id or at least one face id';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InputError('invalid_input', `${field} must be ${rule}`, { field, limit: rule });
  const w = value as { person_id?: unknown; face_ids?: unknown };
  const personId = w.person_id === undefined ? undefined : checkId(w.person_id, `${field}.person_id`);
  const faceIds = w.face_ids === undefined || (Array.isArray(w.face_ids) && w.face_ids.length === 0) ? [] : checkVisitorIds(w.face_ids, `${field}.face_ids`, 'face ids');
  if (personId === undefined && faceIds.length === 0) throw new InputError('invalid_input', `${field} must be ${rule}`, { field, limit: rule });
  return { ...(personId === undefined ? {} : { person_id: personId }), face_ids: [...new Set(faceIds)] };
}

/** Checks a search: every field named when it is wrong; nothing of it ever becomes SQL text. */
export function checkQuery(q: HistoryQuery): CheckedQuery {
  if (typeof q !== 'object' || q === null) throw new InputError('invalid_input', 'the query must be an object', { field: 'query' });
  const out: CheckedQuery = { limit: DEFAULT_LIMIT };
  if (q.person_id !== undefined) out.person_id = checkId(q.person_id, 'person_id');
  if (q.name !== undefined) out.name_key = nameKey(checkId(typeof q.name === 'string' ? q.name.trim() : q.name, 'name'));
  const visitors = [...(q.visitor_id !== undefined ? [checkId(q.visitor_id, 'visitor_id')] : []), ...(q.visitor_ids !== undefined ? checkVisitorIds(q.visitor_ids) : [])];
  if (visitors.length > 0) out.visitor_ids = [...new Set(visitors)];
  if (q.who !== undefined) out.who = checkWho(q.who);
  if (q.stream_id !== undefined) out.stream_id = checkId(q.stream_id, 'stream_id');
  if (q.room_id !== undefined) out.room_id = checkId(q.room_id, 'room_id');
  if (q.kind !== undefined) out.kind = checkKind(q.kind);
  if (q.since !== undefined) out.since = parseIsoTime(q.since, 'since');
  if (q.until !== undefined) out.until = parseIsoTime(q.until, 'until');
  if (out.since !== undefined && out.until !== undefined && out.since >= out.until) {
    throw new InputError('invalid_input', `since (${q.since}) must be before until (${q.until})`, { field: 'since', limit: 'before until' });
  }
  if (q.limit !== undefined) {
    if (typeof q.limit !== 'number' || !Number.isInteger(q.limit) || q.limit < 1 || q.limit > MAX_LIMIT) {
      throw new InputError('invalid_input', `limit must be a whole number from 1 to ${MAX_LIMIT}; got ${describe(q.limit)}`, { field: 'limit', limit: `1 to ${MAX_LIMIT}` });
    }
    out.limit = q.limit;
  }
  if (q.cursor !== undefined) out.cursor = decodeCursor(q.cursor);
  return out;
}

/** The cursor of the page after a visit: where the next page resumes (opaque to callers). */
export function encodeCursor(arrivedAt: number, visitId: string): string {
  return Buffer.from(JSON.stringify([arrivedAt, visitId])).toString('base64url');
}

/** A cursor this store gave, or an InputError naming `cursor`. */
export function decodeCursor(cursor: unknown): { arrived_at: number; visit_id: string } {
  const bad = (): InputError => new InputError('invalid_input', 'cursor is not one this history gave (pass the `next` of the previous page as it is)', { field: 'cursor', limit: 'the `next` of a previous page' });
  if (typeof cursor !== 'string' || cursor.length > 1000 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Number.isSafeInteger(parsed[0]) || typeof parsed[1] !== 'string' || parsed[1] === '' || parsed[1].length > MAX_ID_LENGTH) throw bad();
  return { arrived_at: parsed[0] as number, visit_id: parsed[1] };
}

/** A value as an error may quote it: short, on one line. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'a list' : typeof value;
}
