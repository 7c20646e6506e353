import type { SqlDialect } from './dialect';
import type { CheckedPatch, PatchColumn } from './records';
import { VISIT_COLUMN_NAMES, type SqlStatement, type SqlValue } from './sql';

/**
 * A visit's write as SQL: how a checked patch merges into the visit's row, said once for both
 * engines. A patch that gives every first-write field is an upsert (`INSERT … ON CONFLICT (visit_id)
 * DO UPDATE`: two writers creating one visit at once both land, the second as an update); any other
 * patch is an UPDATE. Either returns the visit's id and span, or no row when the visit is not there
 * (an UPDATE) or would leave before it arrived (nothing is written then). On PostgreSQL the events
 * and the longest span ride in the same statement (a data-modifying WITH), so a write is one round
 * trip and one implicit transaction; SQLite, which has no such WITH, runs the same upsert and then
 * the events in its (local, synchronous) transaction.
 */

/** The columns a patch may set, in VISIT_COLUMN_NAMES order. */
const PATCH_COLUMNS = VISIT_COLUMN_NAMES.filter((c): c is PatchColumn => c !== 'visit_id' && c !== 'ends_at' && c !== 'updated_at');

/** Each column's type as the schema makes it (BIGINT times, DOUBLE PRECISION numbers, else TEXT), of visits and of visit_events. */
function columnType(c: string): string {
  if (c === 'duration_s' || c === 'best_score' || c === 'score') return 'double precision';
  return c.endsWith('_at') ? 'bigint' : 'text';
}

/** What a write returns: the visit's span (ends_at - arrived_at, ms) after it. */
export const SPAN_COLUMN = 'span_ms';

/** The upsert or update of a visit's row for `checked`, written at `nowMs`. */
export function visitWriteSql(d: SqlDialect, checked: CheckedPatch, nowMs: number): SqlStatement {
  const params: SqlValue[] = [checked.visitId];
  // PostgreSQL is told each parameter's type: in an UPDATE within a WITH it cannot always tell.
  const param = (value: SqlValue, column: string): string => {
    params.push(value);
    return d.typedParameters ? `$${params.length}::${columnType(column)}` : `$${params.length}`;
  };
  const given = PATCH_COLUMNS.filter((c) => checked.set[c] !== undefined);
  const slot = new Map(given.map((c) => [c, param(checked.set[c]!, c)]));
  // The row after the write, in terms of the row before it (`visits.`) and the patch's values.
  const after = (c: PatchColumn): string => slot.get(c) ?? `visits.${c}`;
  const arrived = after('arrived_at');
  const left = after('left_at');
  const latestEvent = checked.events.length > 0 ? Math.max(...checked.events.map((e) => e.event_at)) : undefined;
  const latest = `${d.greatest}(${[arrived, 'visits.ends_at', ...(latestEvent === undefined ? [] : [param(latestEvent, 'ends_at')])].join(', ')})`;
  const updated = param(nowMs, 'updated_at');
  const sets = [
    ...given.map((c) => `${c} = ${slot.get(c)!}`),
    ...(slot.has('duration_s') ? [] : [`duration_s = CASE WHEN ${left} IS NULL THEN visits.duration_s ELSE (${left} - ${arrived}) / 1000.0 END`]),
    `ends_at = COALESCE(${left}, ${latest})`,
    `updated_at = ${updated}`,
  ].join(', ');
  // A visit never leaves before it arrives: such a write changes nothing and returns no row.
  const keep = `(${left} IS NULL OR ${left} >= ${arrived})`;
  const returning = `RETURNING visit_id, ends_at - arrived_at AS ${SPAN_COLUMN}`;
  if (!checked.creates) return { text: `UPDATE visits SET ${sets} WHERE visit_id = $1 AND ${keep} ${returning}`, params };
  // A new visit's row, whole: what the patch leaves out is NULL, its span as mergePatch made it.
  const arrivedMs = checked.set.arrived_at as number;
  const leftMs = (checked.set.left_at ?? null) as number | null;
  const values = VISIT_COLUMN_NAMES.map((c) => {
    if (c === 'visit_id') return '$1';
    if (c === 'updated_at') return updated;
    if (c === 'ends_at') return param(leftMs ?? Math.max(arrivedMs, latestEvent ?? arrivedMs), c);
    if (c === 'duration_s' && !slot.has(c)) return leftMs === null ? 'NULL' : param((leftMs - arrivedMs) / 1000, c);
    return slot.get(c) ?? 'NULL';
  });
  return {
    text: `INSERT INTO visits (${VISIT_COLUMN_NAMES.join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT (visit_id) DO UPDATE SET ${sets} WHERE ${keep} ${returning}`,
    params,
  };
}

/**
 * PostgreSQL's whole write in one statement: the visit's upsert or update, its events inserted in
 * order from arrays (only when the visit was written), and the longest span raised when this visit's
 * is longer. Returns one row (the span) when it wrote, none when the visit's write changed nothing.
 */
export function visitWriteWithEventsSql(d: SqlDialect, checked: CheckedPatch, nowMs: number): { text: string; params: Array<SqlValue | SqlValue[]> } {
  const visit = visitWriteSql(d, checked, nowMs);
  const params: Array<SqlValue | SqlValue[]> = [...visit.params];
  const parts = [`v AS (${visit.text})`];
  if (checked.events.length > 0) {
    const arrays = (['event', 'event_at', 'score', 'reason', 'face_id'] as const).map((f) => {
      params.push(checked.events.map((e) => e[f]));
      return `$${params.length}::${columnType(f)}[]`;
    });
    parts.push(
      'e AS (INSERT INTO visit_events (visit_id, event, event_at, score, reason, face_id) ' +
        `SELECT v.visit_id, x.event, x.event_at, x.score, x.reason, x.face_id FROM v CROSS JOIN unnest(${arrays.join(', ')}) WITH ORDINALITY AS x(event, event_at, score, reason, face_id, n) ORDER BY x.n)`,
    );
  }
  parts.push(`m AS (UPDATE history_meta SET meta_value = v.${SPAN_COLUMN} FROM v WHERE meta_key = 'longest_visit_ms' AND meta_value < v.${SPAN_COLUMN})`);
  return { text: `WITH ${parts.join(', ')} SELECT ${SPAN_COLUMN} FROM v`, params };
}
