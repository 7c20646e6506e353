import { InputError } from '../errors';
import { nameKey } from '../people/document';
import { checkId, checkKind, describe, parseIsoTime } from './query';
import { VISIT_COLUMN_NAMES, type SqlValue, type VisitColumn } from './sql';
import type { MediaKind, MediaRef, VisitEventRecord, VisitPatch, VisitRecord } from './types';
import type { FaceQuality } from '../watch/events';

/**
 * Between the history's records and its rows: a patch checked and merged into a visit's row, and
 * rows read back as records. Both engines use these, so a visit reads the same from either.
 */

/** A visit's row: a value per column. */
export type VisitRow = Record<VisitColumn, SqlValue>;

/** An event as its row holds it. */
export interface EventRow {
  event: string;
  event_at: number;
  score: number | null;
  reason: string | null;
  face_id: string | null;
}

const EVENTS: readonly VisitEventRecord['event'][] = ['arrived', 'match', 'unknown', 'left', 'clip'];

/** Most events one write may append. */
const MAX_EVENTS_PER_WRITE = 1000;

/** A number column as a number (pg gives BIGINT as a string, node:sqlite may give a bigint). */
export function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}

function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function optionalId(value: unknown, field: string): string | null {
  return value === null ? null : checkId(value, field);
}

function optionalNumber(value: unknown, field: string, min = -Infinity, max = Infinity): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InputError('invalid_input', `${field} must be a number from ${min} to ${max}, or null; got ${describe(value)}`, { field, limit: `${min} to ${max}` });
  }
  return value;
}

function checkEvent(e: unknown, i: number): EventRow {
  const field = `events[${i}]`;
  if (typeof e !== 'object' || e === null) throw new InputError('invalid_input', `${field} must be an event object`, { field });
  const ev = e as Partial<VisitEventRecord>;
  if (!EVENTS.includes(ev.event as VisitEventRecord['event'])) {
    throw new InputError('invalid_input', `${field}.event must be one of ${EVENTS.join(', ')}; got ${describe(ev.event)}`, { field: `${field}.event`, limit: EVENTS.join(', ') });
  }
  return {
    event: ev.event as string,
    event_at: parseIsoTime(ev.time, `${field}.time`),
    score: ev.score === undefined ? null : optionalNumber(ev.score, `${field}.score`),
    reason: ev.reason === undefined ? null : checkId(ev.reason, `${field}.reason`),
    face_id: ev.face_id === undefined ? null : checkId(ev.face_id, `${field}.face_id`),
  };
}

/** The fields a visit's first write must give, in the order a refusal names the first one missing. */
export const FIRST_WRITE_FIELDS = ['kind', 'room_id', 'stream_id', 'arrived_at'] as const;

/** The columns a patch may set (name_key follows name; ends_at, updated_at are the store's). */
export type PatchColumn = Exclude<VisitColumn, 'visit_id' | 'ends_at' | 'updated_at'>;

/**
 * A patch checked: the columns it sets with their values, the events it appends, and whether it
 * can make a new visit (it gives every field of a first write). How it merges into a visit's row is
 * one statement for both engines (visit-write.ts): a column the patch leaves out keeps its value,
 * `duration_s` follows `left_at` unless given, `ends_at` is when it left or else its latest time.
 */
export interface CheckedPatch {
  visitId: string;
  set: Partial<Record<PatchColumn, SqlValue>>;
  events: EventRow[];
  creates: boolean;
}

/**
 * A patch's fields checked, each named when refused. `face`, `snapshot` and `clip` are not taken
 * from a patch (putMedia names media). Whether a visit without every first-write field exists, and
 * whether `left_at` falls before an arrival the patch does not give, only the database can say.
 */
export function checkPatch(patch: VisitPatch): CheckedPatch {
  if (typeof patch !== 'object' || patch === null) throw new InputError('invalid_input', 'a visit patch must be an object', { field: 'patch' });
  const visitId = checkId(patch.visit_id, 'visit_id');
  if (patch.events !== undefined && (!Array.isArray(patch.events) || patch.events.length > MAX_EVENTS_PER_WRITE)) {
    throw new InputError('invalid_input', `events must be a list of at most ${MAX_EVENTS_PER_WRITE} events`, { field: 'events', limit: `at most ${MAX_EVENTS_PER_WRITE}` });
  }
  const set: CheckedPatch['set'] = {};
  if (patch.kind !== undefined) set.kind = checkKind(patch.kind);
  if (patch.person_id !== undefined) set.person_id = optionalId(patch.person_id, 'person_id');
  if (patch.name !== undefined) {
    const name = optionalId(patch.name, 'name');
    set.name = name;
    set.name_key = name === null ? null : nameKey(name.trim());
  }
  if (patch.visitor_id !== undefined) set.visitor_id = optionalId(patch.visitor_id, 'visitor_id');
  if (patch.face_id !== undefined) set.face_id = optionalId(patch.face_id, 'face_id');
  if (patch.label !== undefined) set.label = optionalId(patch.label, 'label');
  if (patch.room_id !== undefined) set.room_id = checkId(patch.room_id, 'room_id');
  if (patch.stream_id !== undefined) set.stream_id = checkId(patch.stream_id, 'stream_id');
  if (patch.stream_label !== undefined) set.stream_label = optionalId(patch.stream_label, 'stream_label');
  if (patch.arrived_at !== undefined) set.arrived_at = parseIsoTime(patch.arrived_at, 'arrived_at');
  if (patch.left_at !== undefined) set.left_at = patch.left_at === null ? null : parseIsoTime(patch.left_at, 'left_at');
  if (patch.duration_s !== undefined) set.duration_s = optionalNumber(patch.duration_s, 'duration_s', 0);
  if (patch.best_score !== undefined) set.best_score = optionalNumber(patch.best_score, 'best_score');
  if (patch.quality !== undefined) set.quality = checkQuality(patch.quality);
  const events = (patch.events ?? []).map(checkEvent);
  const early = typeof set.left_at === 'number' && typeof set.arrived_at === 'number' ? leftBeforeArrival(set.left_at, set.arrived_at) : undefined;
  if (early) throw early;
  return { visitId, set, events, creates: FIRST_WRITE_FIELDS.every((f) => set[f] !== undefined) };
}

/** The refusal of a visit that would leave before it arrived (both in ms); undefined when it does not. */
export function leftBeforeArrival(left: number, arrived: number): InputError | undefined {
  return left < arrived ? new InputError('invalid_input', `left_at (${iso(left)}) is before arrived_at (${iso(arrived)})`, { field: 'left_at', limit: 'not before arrived_at' }) : undefined;
}

/** The refusal of a patch that gives no first-write field a visit not yet written needs. */
export function firstWriteMissing(checked: CheckedPatch): InputError {
  const field = FIRST_WRITE_FIELDS.find((f) => checked.set[f] === undefined) ?? 'arrived_at';
  return new InputError('invalid_input', `the first write of visit ${describe(checked.visitId)} must give ${field}`, { field, limit: 'given on the first write of a visit' });
}

function checkQuality(value: unknown): string | null {
  if (value === null) return null;
  const q = value as Partial<FaceQuality>;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InputError('invalid_input', 'quality must be the face quality object of an event, or null', { field: 'quality' });
  const text = JSON.stringify(q);
  if (text.length > 2000) throw new InputError('invalid_input', 'quality is larger than 2000 characters as JSON', { field: 'quality', limit: 'at most 2000 characters' });
  return text;
}

/** A media row as a reference. */
export function mediaRef(row: Record<string, unknown>): MediaRef {
  return { name: String(row.name), bytes: num(row.bytes), mime: String(row.mime) };
}

/** A visit's record from its row, events and media rows. */
export function visitRecord(row: Record<string, unknown>, events: Record<string, unknown>[], media: Record<string, unknown>[]): VisitRecord {
  const byKind = new Map<MediaKind, MediaRef>(media.map((m) => [String(m.kind) as MediaKind, mediaRef(m)]));
  const left = numOrNull(row.left_at);
  return {
    visit_id: String(row.visit_id),
    kind: String(row.kind) as VisitRecord['kind'],
    person_id: strOrNull(row.person_id),
    name: strOrNull(row.name),
    visitor_id: strOrNull(row.visitor_id),
    face_id: strOrNull(row.face_id),
    label: strOrNull(row.label),
    room_id: String(row.room_id),
    stream_id: String(row.stream_id),
    stream_label: strOrNull(row.stream_label),
    arrived_at: iso(num(row.arrived_at)),
    left_at: left === null ? null : iso(left),
    duration_s: numOrNull(row.duration_s),
    best_score: numOrNull(row.best_score),
    quality: row.quality === null || row.quality === undefined ? null : (JSON.parse(String(row.quality)) as FaceQuality),
    face: byKind.get('face') ?? null,
    snapshot: byKind.get('snapshot') ?? null,
    clip: byKind.get('clip') ?? null,
    events: events.map(eventRecord),
    updated_at: iso(num(row.updated_at)),
  };
}

function eventRecord(row: Record<string, unknown>): VisitEventRecord {
  const e: VisitEventRecord = { event: String(row.event) as VisitEventRecord['event'], time: iso(num(row.event_at)) };
  if (row.score !== null && row.score !== undefined) e.score = num(row.score);
  if (row.reason !== null && row.reason !== undefined) e.reason = String(row.reason);
  if (row.face_id !== null && row.face_id !== undefined) e.face_id = String(row.face_id);
  return e;
}

/** A row read from an engine as a visit row (every column present). */
export function visitRow(row: Record<string, unknown>): VisitRow {
  const out = {} as VisitRow;
  for (const c of VISIT_COLUMN_NAMES) {
    const v = row[c];
    out[c] = v === undefined || v === null ? null : typeof v === 'bigint' ? Number(v) : (v as SqlValue);
  }
  return out;
}
