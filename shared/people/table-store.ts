import { PeopleError } from './errors';
import { DataTableApi, type RowFilter, type TableRequest } from './table-api';
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
}

/** Conditions joined in one filter at most, so a request's URL stays short. */
const MAX_CONDITIONS = 100;

/**
 * The people of a collection kept in an n8n data table, one row a face (table-rows.ts), read and
 * written through n8n's public API: users see and edit names on n8n's Data Tables page, and every
 * n8n process (queue-mode workers too) shares them. An update reads the rows, applies the change,
 * and writes only the rows that differ (added first, then changed, then removed, so a reader
 * never misses a face), so two writers lose nothing of each other's. There is no seal: users
 * edit the table by hand.
 */
export class TablePeopleStore implements PeopleStore {
  readonly name: string;
  readonly #api: DataTableApi;
  readonly #collectionId: string;
  #columnsChecked = false;

  constructor(options: TablePeopleStoreOptions) {
    this.#api = new DataTableApi(options.request, options.tableId);
    this.#collectionId = options.collectionId;
    this.name = `data table ${options.tableName ?? options.tableId}`;
  }

  /** The collection's people, or undefined when the table holds none of them. */
  async load(): Promise<PeopleDocument | undefined> {
    return rowsDocument(await this.#read(), this.#collectionId);
  }

  /** Applies `change` to the rows as they are now and writes the difference. */
  async update(change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument> {
    await this.#ensureColumns();
    const before = await this.#read();
    const after = change(rowsDocument(before, this.#collectionId) ?? { kind: 'vision-streaming-people', version: 1, collectionId: '', people: [] });
    if (after.collectionId !== this.#collectionId && after.people.length > 0) {
      throw new PeopleError('people_store_mismatch', `The ${this.name} keeps the people of collection ${this.#collectionId}, not of ${after.collectionId}`);
    }
    await this.#write(before, documentRows({ ...after, collectionId: this.#collectionId }));
    return { ...after, collectionId: this.#collectionId };
  }

  async #read(): Promise<ReadRow[]> {
    return readRows(await this.#api.rows(), this.#collectionId);
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
