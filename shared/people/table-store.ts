import { randomUUID } from 'node:crypto';
import { PeopleError } from './errors';
import { DataTableApi, type RowFilter, type TableRequest } from './table-api';
import { backoff, leaseLive, LEASE_COLUMN, newVersionRow, releasedLease, takenLease, versionFilter, versionRows, type Held } from './table-lease';
import { documentRows, PEOPLE_COLUMNS, readRows, rowKey, rowsDocument, type PeopleRow, type ReadRow } from './table-rows';
import type { PeopleDocument, PeopleStore } from './types';

/** What a table store is made of. */
export interface TablePeopleStoreOptions {
  /** Sends a request of n8n's public API with the host's API key (see table-api.ts). */
  request: TableRequest;
  /** The data table's id. */
  tableId: string;
  /** The collection whose people the store keeps (a table may hold several collections). */
  collectionId: string;
  /** The table's name, for messages; its id when not given. */
  tableName?: string;
  /** How long a writer may hold the table before another takes it over (default 30 s). */
  leaseMs?: number;
  /** Tries of one update before people_conflict (default 60, over more than a lease). */
  attempts?: number;
}

/** Conditions joined in one filter at most, so a request's URL stays short. */
const MAX_CONDITIONS = 100;

/** How long a writer may hold the table's version row before another may take it over (a writer that died). */
const LEASE_MS = 30_000;

/** Tries of one update before it gives up with people_conflict: with the waits below, longer than a lease. */
const ATTEMPTS = 60;

/** The wait before the next try grows from this, times 1.3 a try, up to MAX_WAIT_MS (each drawn between half and all of it). */
const FIRST_WAIT_MS = 25;
const MAX_WAIT_MS = 1000;

/**
 * The people of a collection kept in an n8n data table, one row a face (table-rows.ts), read and
 * written through n8n's public API: users see and edit names on n8n's Data Tables page, and every
 * n8n process (queue-mode workers too) shares them. There is no seal: users edit the table by hand.
 *
 * Two writers (two queue-mode workers) must not both apply a change to the same state, and n8n's
 * API has no transaction over several requests. So one row per collection, of kind `version`
 * (table-lease.ts), is a lease taken by a conditional update: a writer reads it, sets its own token
 * where the version is still the one it read (n8n updates only the rows its filter matches, in one
 * statement), reads the rows back, and goes on only if the token it finds is its own. It then
 * applies the change to the rows as they are, writes the difference (added first, then changed,
 * then removed, so a reader never misses a face) and gives the lease back. A writer that finds the
 * lease taken, or loses the race for it, waits and tries again, up to ATTEMPTS times, and then
 * fails with people_conflict, having written nothing.
 */
export class TablePeopleStore implements PeopleStore {
  readonly name: string;
  readonly #api: DataTableApi;
  readonly #collectionId: string;
  readonly #leaseMs: number;
  readonly #attempts: number;
  #columnsChecked = false;

  constructor(options: TablePeopleStoreOptions) {
    this.#api = new DataTableApi(options.request, options.tableId);
    this.#collectionId = options.collectionId;
    this.name = `data table ${options.tableName ?? options.tableId}`;
    this.#leaseMs = options.leaseMs ?? LEASE_MS;
    this.#attempts = options.attempts ?? ATTEMPTS;
  }

  /** The collection's people, or undefined when the table holds none of them. */
  async load(): Promise<PeopleDocument | undefined> {
    return rowsDocument(readRows(await this.#api.rows(), this.#collectionId), this.#collectionId);
  }

  /** Applies `change` to the rows as they are now and writes the difference, holding the table's lease meanwhile. */
  async update(change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument> {
    await this.#ensureColumns();
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      const lease = await this.#takeLease();
      if (lease === 'created') continue;
      if (lease === 'busy') {
        if (attempt < this.#attempts) await backoff(attempt, FIRST_WAIT_MS, MAX_WAIT_MS);
        continue;
      }
      try {
        return await this.#apply(lease, change);
      } finally {
        await this.#api.update(lease.mine, releasedLease()).catch(() => undefined);
      }
    }
    throw new PeopleError('people_conflict', `The ${this.name} was being changed by another writer each of ${this.#attempts} times it was tried; nothing was written. Try again.`, { retryable: true, status: 409 });
  }

  /**
   * Takes the collection's lease: 'created' when there was no version row yet (one is added; try
   * again), 'busy' when another writer holds it or took it first, else what the holder needs.
   */
  async #takeLease(): Promise<Held | 'created' | 'busy'> {
    const seen = versionRows(await this.#api.rows(), this.#collectionId);
    const current = seen[0];
    if (!current) {
      await this.#api.insert([newVersionRow(this.#collectionId)]);
      return 'created';
    }
    if (seen.some((v) => leaseLive(v, Date.now()))) return 'busy';
    const token = randomUUID();
    const version = current.version + 1;
    await this.#api.update(versionFilter(current.id, current.stamp), takenLease(version, token, Date.now() + this.#leaseMs));
    // Read back: the rows as they are now, and whether the update above was the one that matched.
    const stored = await this.#api.rows();
    const now = versionRows(stored, this.#collectionId);
    const held = now.find((v) => v.id === current.id);
    const mine = { type: 'and', filters: [...versionFilter(current.id, String(version)).filters, { columnName: LEASE_COLUMN, condition: 'eq', value: token }] } satisfies RowFilter;
    if (held?.holder !== token) return 'busy';
    // Two version rows (two first writers at once): the one of the lowest id counts; one in use by another writer waits for it.
    if (now[0]?.id !== current.id || now.some((v) => v.id !== current.id && leaseLive(v, Date.now()))) {
      await this.#api.update(mine, releasedLease()).catch(() => undefined);
      return 'busy';
    }
    return { mine, stored, extra: now.filter((v) => v.id !== current.id).map((v) => v.id) };
  }

  /** Applies the change to the rows read under the lease and writes the difference. */
  async #apply(lease: Held, change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument> {
    const before = readRows(lease.stored, this.#collectionId);
    const after = change(rowsDocument(before, this.#collectionId) ?? { kind: 'vision-streaming-people', version: 1, collectionId: '', people: [] });
    if (after.collectionId !== this.#collectionId && after.people.length > 0) {
      throw new PeopleError('people_store_mismatch', `The ${this.name} keeps the people of collection ${this.#collectionId}, not of ${after.collectionId}`);
    }
    await this.#write(before, documentRows({ ...after, collectionId: this.#collectionId }));
    for (const filter of byIds(lease.extra)) await this.#api.delete(filter);
    return { ...after, collectionId: this.#collectionId };
  }

  /** Adds the columns a table made by hand lacks (once per store). */
  async #ensureColumns(): Promise<void> {
    if (this.#columnsChecked) return;
    const have = new Set(await this.#api.columns());
    for (const column of PEOPLE_COLUMNS) if (!have.has(column)) await this.#api.addColumn(column);
    this.#columnsChecked = true;
  }

  async #write(before: readonly ReadRow[], after: readonly PeopleRow[]): Promise<void> {
    const stored = new Map<string, ReadRow>();
    for (const read of before) if (!stored.has(rowKey(read.row))) stored.set(rowKey(read.row), read);
    const inserts: PeopleRow[] = [];
    // Rows given the same values change in one request (a rename is one request).
    const updates = new Map<string, { data: Partial<PeopleRow>; ids: (number | string)[] }>();
    for (const row of after) {
      const old = stored.get(rowKey(row));
      stored.delete(rowKey(row));
      if (!old) {
        inserts.push(row);
        continue;
      }
      const data = Object.fromEntries(Object.entries(row).filter(([column, value]) => old.row[column as keyof PeopleRow] !== value)) as Partial<PeopleRow>;
      if (Object.keys(data).length === 0) continue;
      const same = JSON.stringify(data);
      const group = updates.get(same) ?? { data, ids: [] };
      group.ids.push(old.id);
      updates.set(same, group);
    }
    await this.#api.insert(inserts);
    for (const { data, ids } of updates.values()) {
      for (const filter of byIds(ids)) await this.#api.update(filter, data as Record<string, string>);
    }
    for (const filter of byIds([...stored.values()].map((r) => r.id))) await this.#api.delete(filter);
  }
}

/** Filters matching rows by their n8n ids, a bounded number of ids each. */
function byIds(ids: readonly (number | string)[]): RowFilter[] {
  const filters: RowFilter[] = [];
  for (let at = 0; at < ids.length; at += MAX_CONDITIONS) {
    filters.push({ type: 'or', filters: ids.slice(at, at + MAX_CONDITIONS).map((id) => ({ columnName: 'id', condition: 'eq', value: id })) });
  }
  return filters;
}
