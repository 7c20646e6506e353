import { InputError } from '../errors';
import type { VisitKind } from '../watch/events';
import { MAX_LIMIT, parseIsoTime, VISIT_KINDS } from './query';
import type { HistoryQuery, HistoryStore, MediaKind, MediaRef, VisitRecord } from './types';

/** A person id as the people directory makes them (`p_` and a UUID): anything else is a name. */
const PERSON_ID = /^p_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A relative time: a number and a unit (minutes, hours, days, weeks) before now, e.g. `2d`, `12h`. */
const RELATIVE = /^(\d{1,6})\s*(m|min|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Most visits a page holds. */
const MAX_HISTORY_LIMIT = MAX_LIMIT;

/** A search as a host's fields give it: text from a message, a form or a parameter, each optional. */
export interface HostHistoryFields {
  /** A name, or a person id (p_…). */
  person?: unknown;
  visitor?: unknown;
  stream?: unknown;
  room?: unknown;
  kind?: unknown;
  /** ISO 8601, a Date, epoch milliseconds, `today`, or a time before now such as `2d`, `12h`, `30m`, `1w`. */
  since?: unknown;
  until?: unknown;
  limit?: unknown;
  cursor?: unknown;
}

/**
 * A host's search fields as the store's query, each checked and named in the error (`since`,
 * `until`, `limit`, `kind`); empty values are "not set". Nothing here becomes SQL: the store takes
 * the values as parameters.
 */
export function hostHistoryQuery(f: HostHistoryFields, now: Date = new Date()): HistoryQuery {
  const q: HistoryQuery = {};
  const person = text(f.person, 'person');
  if (person !== undefined) {
    if (PERSON_ID.test(person)) q.person_id = person;
    else q.name = person;
  }
  const visitor = text(f.visitor, 'visitor');
  if (visitor !== undefined) q.visitor_id = visitor;
  const stream = text(f.stream, 'stream');
  if (stream !== undefined) q.stream_id = stream;
  const room = text(f.room, 'room');
  if (room !== undefined) q.room_id = room;
  const kind = text(f.kind, 'kind');
  if (kind !== undefined) {
    if (!VISIT_KINDS.includes(kind as VisitKind)) throw new InputError('invalid_input', `kind must be one of ${VISIT_KINDS.join(', ')}; got ${JSON.stringify(kind.slice(0, 40))}`, { field: 'kind', limit: VISIT_KINDS.join(' | ') });
    q.kind = kind as VisitKind;
  }
  const since = historyTime(f.since, 'since', now);
  const until = historyTime(f.until, 'until', now);
  if (since !== undefined) q.since = since;
  if (until !== undefined) q.until = until;
  if (since !== undefined && until !== undefined && Date.parse(since) >= Date.parse(until)) {
    throw new InputError('invalid_input', `until (${until}) must be after since (${since})`, { field: 'until', limit: 'a time after since' });
  }
  if (f.limit !== undefined && f.limit !== null && f.limit !== '') {
    const limit = typeof f.limit === 'number' ? f.limit : Number(String(f.limit).trim());
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) throw new InputError('invalid_input', `limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}`, { field: 'limit', limit: `1 to ${MAX_HISTORY_LIMIT}` });
    q.limit = limit;
  }
  const cursor = text(f.cursor, 'cursor');
  if (cursor !== undefined) q.cursor = cursor;
  return q;
}

/** A time as the history takes it (ISO 8601, UTC) from what a host holds; undefined when not set. */
export function historyTime(value: unknown, field: string, now: Date = new Date()): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const t = value.trim();
    const relative = RELATIVE.exec(t);
    if (t.toLowerCase() === 'today') ms = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
    else if (relative) ms = now.getTime() - Number(relative[1]) * UNIT_MS[relative[2].toLowerCase()];
    // The store's own check: a day that exists in its month, a time with its zone.
    else if (/^\d{4}-\d{2}-\d{2}/.test(t)) ms = parseIsoTime(t, field);
    else ms = Number.NaN;
  } else ms = Number.NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    throw new InputError('invalid_input', `${field} must be an ISO 8601 date or time (2026-11-28, 2026-11-28T09:00:00Z), today, or a time before now such as 2d, 12h, 30m`, { field, limit: 'an ISO 8601 date, today, or Nm/Nh/Nd/Nw' });
  }
  return new Date(ms).toISOString();
}

/** A visit as hosts hand it out: the record, and where each of its media files is (null when it has none). */
export type VisitRow = VisitRecord & { face_path: string | null; snapshot_path: string | null; clip_path: string | null };

/** The record with its media as paths of this history's media folder. */
export function visitRow(visit: VisitRecord, store: Pick<HistoryStore, 'mediaPath'>): VisitRow {
  const at = (ref: MediaRef | null) => (ref ? store.mediaPath(ref) : null);
  return { ...visit, face_path: at(visit.face), snapshot_path: at(visit.snapshot), clip_path: at(visit.clip) };
}

/** The media files of a visit a host wants as bytes (those it has; a file gone meanwhile, e.g. swept, is left out). */
export async function visitMedia(visit: VisitRecord, store: Pick<HistoryStore, 'readMedia'>, kinds: readonly MediaKind[]): Promise<{ kind: MediaKind; ref: MediaRef; bytes: Buffer }[]> {
  const out: { kind: MediaKind; ref: MediaRef; bytes: Buffer }[] = [];
  for (const kind of kinds) {
    const ref = visit[kind];
    if (!ref) continue;
    const bytes = await store.readMedia(ref).catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === 'ENOENT') return undefined;
      throw err;
    });
    if (bytes) out.push({ kind, ref, bytes });
  }
  return out;
}

function text(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') throw new InputError('invalid_input', `${field} must be text`, { field, limit: 'a string' });
  const t = String(value).trim();
  if (t.length > 256) throw new InputError('invalid_input', `${field} is longer than 256 characters`, { field, limit: 'at most 256 characters' });
  return t === '' ? undefined : t;
}
