import type { RowFilter, TableRow } from './table-api';
import type { PeopleRow } from './table-rows';

/**
 * The bookkeeping row of a collection in a people table: kind `version`, one per collection, read
 * by no person. Its face_id holds the version (a count, raised by every writer that takes the
 * lease), its `from` the token of the writer holding the lease ('' when free) and its added_at the
 * lease's end (ISO 8601). Reusing the people columns keeps the table's shape: a table made for an
 * earlier release needs no new column, and releases that do not know the kind skip the row.
 */

/** The kind of the bookkeeping row. */
export const VERSION_KIND = 'version';

/** The column that holds the lease holder's token. */
export const LEASE_COLUMN = 'from';

/** A collection's version row as read. */
export interface VersionRow {
  id: number | string;
  version: number;
  /** The version as stored (the conditional update matches this text). */
  stamp: string;
  /** The token of the writer holding the lease, '' when free. */
  holder: string;
  /** When the lease ends (ms since the epoch); 0 when free. */
  until: number;
}

/** What a writer holding the lease works with. */
export interface Held {
  /** Matches the version row while this writer holds it (its id, the version it set, its token). */
  mine: RowFilter;
  /** Every row of the table, read once the lease was taken. */
  stored: TableRow[];
  /** Other version rows of the collection (two first writers at once), removed by this write. */
  extra: (number | string)[];
}

/** The collection's version rows, lowest n8n id first (that one counts). */
export function versionRows(stored: readonly TableRow[], collectionId: string): VersionRow[] {
  const text = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());
  return stored
    .filter((r) => text(r.kind) === VERSION_KIND && text(r.collection_id) === collectionId)
    .map((r) => {
      const version = Number(text(r.face_id));
      const until = Date.parse(text(r.added_at));
      return { id: r.id, version: Number.isSafeInteger(version) && version >= 0 ? version : 0, stamp: text(r.face_id), holder: text(r[LEASE_COLUMN]), until: Number.isFinite(until) ? until : 0 };
    })
    .sort((a, b) => Number(a.id) - Number(b.id) || String(a.id).localeCompare(String(b.id)));
}

/** Whether another writer holds the row's lease at `now`. */
export function leaseLive(row: VersionRow, now: number): boolean {
  return row.holder !== '' && row.until > now;
}

/** The version row of a collection that has none yet. */
export function newVersionRow(collectionId: string): PeopleRow {
  return { name: '', person_id: '', kind: VERSION_KIND, face_id: '0', from: '', added_at: '', collection_id: collectionId };
}

/** Matches the version row `id` while it holds the version `stamp`: the condition of the conditional update. */
export function versionFilter(id: number | string, stamp: string): RowFilter {
  return {
    type: 'and',
    filters: [
      { columnName: 'id', condition: 'eq', value: id },
      { columnName: 'face_id', condition: 'eq', value: stamp },
    ],
  };
}

/** The values of a lease taken by `token` until `until`, at `version`. */
export function takenLease(version: number, token: string, until: number): Record<string, string> {
  return { face_id: String(version), [LEASE_COLUMN]: token, added_at: new Date(until).toISOString() };
}

/** The values of a lease given back. */
export function releasedLease(): Record<string, string> {
  return { [LEASE_COLUMN]: '', added_at: '' };
}

/** Waits before try `attempt` + 1: longer each try, drawn at random so that writers that collided spread out. */
export function backoff(attempt: number, firstMs: number, maxMs: number): Promise<void> {
  const ceiling = Math.min(maxMs, firstMs * 1.3 ** (attempt - 1));
  return new Promise((resolve) => setTimeout(resolve, ceiling * (0.5 + Math.random() * 0.5)));
}
