import type { PickEntry } from '../pick';
import { PeopleError } from './errors';

/**
 * The part of n8n's public REST API (`/api/v1`, n8n >= 1.113) that keeps a data table: the host
 * sends each request with its own credential (n8n's `n8nApi`: the X-N8N-API-KEY header) and hands
 * back the status and the parsed body, so this module needs no HTTP client and no n8n import.
 */

/** One request, its path relative to the API's base (`.../api/v1`). */
export interface TableHttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/** The answer: any HTTP status resolves; only a request that got no response rejects. */
export interface TableHttpResponse {
  status: number;
  body: unknown;
}

/** Sends one request to n8n's public API with the host's API key. */
export type TableRequest = (req: TableHttpRequest) => Promise<TableHttpResponse>;

/** A row as n8n gives it: the table's columns plus its own id, createdAt and updatedAt. */
export type TableRow = Record<string, unknown> & { id: number | string };

/** One condition of n8n's row filter. */
export interface RowCondition {
  columnName: string;
  condition: 'eq';
  value: string | number;
}

/** n8n's row filter: conditions joined by and/or. */
export interface RowFilter {
  type: 'and' | 'or';
  filters: RowCondition[];
}

/** Rows a page of the row list holds at most (n8n's public API caps `limit` at 250). */
const PAGE = 250;

/** Pages read at most: 250 000 rows, far beyond n8n's default 50 MB for all tables. */
const MAX_PAGES = 1000;

/** Data tables listed at most for a picker. */
const MAX_TABLE_PAGES = 20;

/** Calls on one data table, each a request of n8n's public API; failures are PeopleErrors that name the table. */
export class DataTableApi {
  readonly #request: TableRequest;
  readonly #tableId: string;

  constructor(request: TableRequest, tableId: string) {
    this.#request = request;
    this.#tableId = tableId;
  }

  /** Every row, page after page. */
  async rows(): Promise<TableRow[]> {
    const data = await everyPage(this.#request, `${this.#base}/rows`, MAX_PAGES, `could not read the rows of the ${this.#subject}`, this.#subject);
    return data.filter((row): row is TableRow => row !== null && typeof row === 'object' && 'id' in row);
  }

  /** Names of the table's columns. */
  async columns(): Promise<string[]> {
    const body = await this.#call('read', { method: 'GET', path: this.#base });
    const columns = (body as { columns?: unknown }).columns;
    if (!Array.isArray(columns)) throw invalid(this.#subject, 'it has no column list');
    return columns.map((c) => String((c as { name?: unknown })?.name ?? ''));
  }

  /** Adds a text column; one another writer added just now is there all the same. */
  async addColumn(name: string): Promise<void> {
    try {
      await this.#call(`add the column "${name}" to`, { method: 'POST', path: `${this.#base}/columns`, body: { name, type: 'string' } });
    } catch (err) {
      if (!(err instanceof PeopleError && err.status === 409)) throw err;
    }
  }

  /** Inserts rows in one request. */
  async insert(data: Record<string, string>[]): Promise<void> {
    if (data.length > 0) await this.#call('add rows to', { method: 'POST', path: `${this.#base}/rows`, body: { data } });
  }

  /** Sets `data` on every row the filter matches. */
  async update(filter: RowFilter, data: Record<string, string>): Promise<void> {
    await this.#call('change rows of', { method: 'PATCH', path: `${this.#base}/rows/update`, body: { filter, data } });
  }

  /** Deletes the rows the filter matches (n8n requires a filter). */
  async delete(filter: RowFilter): Promise<void> {
    await this.#call('delete rows of', { method: 'DELETE', path: `${this.#base}/rows/delete`, query: { filter: JSON.stringify(filter) } });
  }

  get #base(): string {
    return `/data-tables/${encodeURIComponent(this.#tableId)}`;
  }

  get #subject(): string {
    return `data table ${this.#tableId}`;
  }

  async #call(what: string, req: TableHttpRequest): Promise<unknown> {
    return await send(this.#request, req, `could not ${what} the ${this.#subject}`, this.#subject);
  }
}

/** The data tables the API key may read, as picker entries, filtered by a search text. */
export async function dataTableEntries(request: TableRequest, filter?: string): Promise<PickEntry[]> {
  const needle = (filter ?? '').trim().toLowerCase();
  const tables = (await everyPage(request, '/data-tables', MAX_TABLE_PAGES, 'could not list the data tables', 'data tables')) as { id?: unknown; name?: unknown; columns?: unknown }[];
  return tables
    .map((table) => ({ table, name: String(table.name ?? table.id) }))
    .filter(({ name }) => needle === '' || name.toLowerCase().includes(needle))
    .map(({ table, name }) => ({ name, value: String(table.id), description: `${Array.isArray(table.columns) ? `${table.columns.length} columns` : 'data table'}; id ${String(table.id)}` }));
}

/** The `data` of every page of a list, following n8n's cursor (`nextCursor`) for at most `maxPages` pages. */
async function everyPage(request: TableRequest, path: string, maxPages: number, failed: string, subject: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const body = await send(request, { method: 'GET', path, query: { limit: String(PAGE), ...(cursor ? { cursor } : {}) } }, failed, subject);
    const data = (body as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) throw invalid(subject, 'its list has no data array');
    items.push(...data);
    const next = (body as { nextCursor?: unknown }).nextCursor;
    if (typeof next !== 'string' || next === '' || data.length === 0) break;
    cursor = next;
  }
  return items;
}

function invalid(subject: string, why: string): PeopleError {
  return new PeopleError('people_store_invalid', `The n8n API's answer for the ${subject} is not one it documents: ${why}`);
}

/** One request; a status outside 2xx, or no response, becomes a PeopleError that says what to check. */
async function send(request: TableRequest, req: TableHttpRequest, failed: string, subject: string): Promise<unknown> {
  let response: TableHttpResponse;
  try {
    response = await request(req);
  } catch (err) {
    // Only the network code: the error of a request helper can carry the request and its API key.
    const code = networkCode(err);
    throw new PeopleError('people_store_failed', `The n8n API ${code ? `could not be reached (${code})` : 'gave no response'}: ${failed}. Check the Base URL of the n8n API credential.`, { retryable: true });
  }
  const { status, body } = response;
  if (status >= 200 && status < 300) return body;
  throw new PeopleError('people_store_failed', `${capitalise(failed)}: HTTP ${status}. ${hint(status, subject)}${serviceMessage(body)}`, { status, retryable: status === 429 || status >= 500 });
}

function hint(status: number, subject: string): string {
  if (status === 401) return 'The n8n API refused the API key: check the n8n API credential (its key, and that the public API is enabled).';
  if (status === 403) return `The API key may not use the ${subject}: give it the dataTable and dataTableRow scopes (and dataTableColumn:create while the table lacks the people columns), and access to the table's project.`;
  if (status === 404) return "Check the table's ID, and that this n8n's public API has data tables (n8n >= 1.113 with the public API enabled).";
  return '';
}

function serviceMessage(body: unknown): string {
  const message = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  if (typeof message !== 'string' || message.trim() === '') return '';
  const flat = message.replace(/\s+/g, ' ').trim();
  return ` n8n says: ${flat.length > 300 ? `${flat.slice(0, 300)}…` : flat}`;
}

function networkCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
