import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TableRequest } from '../../../shared/people/table-api';
import { startStandIn, type StandIn } from '../../support/stand-in';

/**
 * A stand-in of the endpoints of n8n's public REST API that keep data tables (n8n 2.41.1, as
 * REFERENCE.md gives them): tables listed and read, columns added, rows listed with cursor paging,
 * inserted, updated and deleted by filter, every call with the X-N8N-API-KEY header. Statuses and
 * messages are those a real n8n 2.41.1 answered: a `limit` above 250 and a filter without a
 * condition are refused (400), an unknown table is 404, a column added twice 409. Only these
 * endpoints; on 127.0.0.1.
 */

type Row = Record<string, unknown> & { id: number; createdAt: string; updatedAt: string };

interface Table {
  id: string;
  name: string;
  columns: { id: string; name: string; type: string; index: number }[];
  rows: Row[];
  createdAt: string;
  updatedAt: string;
}

interface Filter {
  type?: 'and' | 'or';
  filters: { columnName: string; condition: string; value: unknown }[];
}

/** Rows (or tables) a page holds when the request gives no `limit`, and the most it may ask for. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 250;

/** A running stand-in. */
export interface DataTables {
  /** The API's base, as the n8n API credential's Base URL holds it (…/api/v1). */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly server: StandIn;
  /** Makes a table; returns its id. */
  create(name: string, columns?: string[]): string;
  /** The rows of a table as stored (copies). */
  rows(tableId: string): Row[];
  /** Changes rows by hand, as a user does on n8n's Data Tables page. */
  edit(tableId: string, match: (row: Row) => boolean, data: Record<string, unknown>): void;
  /** Adds a row by hand. */
  insert(tableId: string, data: Record<string, unknown>): void;
  /**
   * Answers reads of rows in groups of `n`, all of a group with the rows as they are when the last
   * one arrives (or `maxWaitMs` after the first), so that writers read the same state at once, as
   * two queue-mode workers can; 0 answers each read at once again.
   */
  holdReads(n: number, maxWaitMs?: number): void;
  /** Requests of one method and path suffix, e.g. count('PATCH', '/rows/update'). */
  count(method: string, suffix: string): number;
  stop(): Promise<void>;
}

/** Starts the stand-in; `pageLimit` caps a page of rows below n8n's own cap, so tests see the cursor paging. */
export async function startDataTables(options: { apiKey: string; pageLimit?: number }): Promise<DataTables> {
  const tables = new Map<string, Table>();
  let nextId = 1;
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  // Each change a later time, as a database would give it.
  const now = () => new Date((clock += 1000)).toISOString();
  const cap = Math.min(options.pageLimit ?? MAX_LIMIT, MAX_LIMIT);

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const tableJson = (t: Table) => ({ id: t.id, name: t.name, columns: t.columns, projectId: 'project-1', createdAt: t.createdAt, updatedAt: t.updatedAt });
  const matches = (row: Row, filter: Filter) => {
    const test = (f: Filter['filters'][number]) => f.condition === 'eq' && String(row[f.columnName] ?? '') === String(f.value ?? '');
    return filter.type === 'or' ? filter.filters.some(test) : filter.filters.every(test);
  };
  const known = (t: Table, data: Record<string, unknown>) => Object.keys(data).find((k) => !t.columns.some((c) => c.name === k));
  const unknownColumn = (name: string) => ({ message: `Validation error with data table request: unknown column name '${name}'` });
  // n8n validates `limit` against its OpenAPI schema before any handler runs.
  const badLimit = (url: URL) => Number(url.searchParams.get('limit') ?? DEFAULT_LIMIT) > MAX_LIMIT;
  const tooLarge = { message: `request/query/limit must be <= ${MAX_LIMIT}` };

  const hold = { n: 0, maxWaitMs: 500, pending: [] as (() => void)[], timer: undefined as NodeJS.Timeout | undefined };
  const flush = () => {
    clearTimeout(hold.timer);
    hold.timer = undefined;
    for (const answer of hold.pending.splice(0)) answer();
  };

  const server = await startStandIn((req, res, raw: IncomingMessage) => {
    const url = new URL(raw.url ?? '/', 'http://stand-in.invalid');
    if (req.headers['x-n8n-api-key'] === undefined) return send(res, 401, { message: "'X-N8N-API-KEY' header required" });
    if (req.headers['x-n8n-api-key'] !== options.apiKey) return send(res, 401, { message: 'unauthorized' });
    const parts = url.pathname.replace(/^\/api\/v1/, '').split('/').filter(Boolean);
    if (parts[0] !== 'data-tables') return send(res, 404, { message: 'not found' });
    const body = req.body.length > 0 ? (JSON.parse(req.body.toString('utf8')) as Record<string, unknown>) : {};
    if (parts.length === 1 && req.method === 'GET') {
      if (badLimit(url)) return send(res, 400, tooLarge);
      return send(res, 200, { data: [...tables.values()].map(tableJson), nextCursor: null });
    }
    const table = tables.get(parts[1] ?? '');
    if (!table) return send(res, 404, { message: `Could not find the data table: '${parts[1]}'` });
    const route = `${req.method} ${parts.slice(2).join('/')}`;
    switch (route) {
      case 'GET ':
        return send(res, 200, tableJson(table));
      case 'POST columns': {
        const column = { id: `c${nextId++}`, name: String(body.name), type: String(body.type), index: table.columns.length };
        if (table.columns.some((c) => c.name === column.name)) return send(res, 409, { message: `Data table column with name '${column.name}' already exists in data table '${table.name}'` });
        table.columns.push(column);
        const at = now();
        return send(res, 201, { dataTableId: table.id, ...column, createdAt: at, updatedAt: at });
      }
      case 'GET rows': {
        if (badLimit(url)) return send(res, 400, tooLarge);
        const answer = () => {
          const limit = Math.min(Number(url.searchParams.get('limit') ?? DEFAULT_LIMIT), cap);
          const cursor = url.searchParams.get('cursor');
          const offset = cursor ? (JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { offset: number }).offset : 0;
          const page = table.rows.slice(offset, offset + limit);
          const more = offset + limit < table.rows.length;
          send(res, 200, { data: page, nextCursor: more ? Buffer.from(JSON.stringify({ offset: offset + limit, limit })).toString('base64') : null });
        };
        if (hold.n < 2) return answer();
        hold.pending.push(answer);
        if (hold.pending.length >= hold.n) flush();
        else hold.timer ??= setTimeout(flush, hold.maxWaitMs);
        return;
      }
      case 'POST rows': {
        const data = body.data as Record<string, unknown>[];
        for (const values of data) {
          const unknown = known(table, values);
          if (unknown) return send(res, 400, unknownColumn(unknown));
        }
        for (const values of data) {
          const at = now();
          table.rows.push({ ...Object.fromEntries(table.columns.map((c) => [c.name, null])), ...values, id: nextId++, createdAt: at, updatedAt: at });
        }
        return send(res, 200, { success: true, insertedRows: data.length });
      }
      case 'PATCH rows/update': {
        const data = body.data as Record<string, unknown>;
        const filter = body.filter as Filter | undefined;
        if (!filter || !Array.isArray(filter.filters) || filter.filters.length === 0) return send(res, 400, { message: 'request/body/filter/filters must NOT have fewer than 1 items' });
        const unknown = known(table, data);
        if (unknown) return send(res, 400, unknownColumn(unknown));
        const at = now();
        for (const row of table.rows) if (matches(row, filter)) Object.assign(row, data, { updatedAt: at });
        return send(res, 200, true);
      }
      case 'DELETE rows/delete': {
        const raw = url.searchParams.get('filter');
        if (!raw) return send(res, 400, { message: "request/query must have required property 'filter'" });
        const filter = JSON.parse(raw) as Filter;
        if (!Array.isArray(filter.filters) || filter.filters.length === 0) return send(res, 400, { message: 'At least one filter condition is required for delete operations' });
        table.rows = table.rows.filter((row) => !matches(row, filter));
        return send(res, 200, true);
      }
      default:
        return send(res, 404, { message: `no route ${route}` });
    }
  });

  const create = (name: string, columns: string[] = []): string => {
    const id = `t${Math.random().toString(36).slice(2, 12)}`;
    const at = now();
    tables.set(id, { id, name, columns: columns.map((c, index) => ({ id: `c${nextId++}`, name: c, type: 'string', index })), rows: [], createdAt: at, updatedAt: at });
    return id;
  };
  const need = (id: string) => {
    const t = tables.get(id);
    if (!t) throw new Error(`no table ${id}`);
    return t;
  };
  return {
    baseUrl: `${server.url}/api/v1`,
    apiKey: options.apiKey,
    server,
    create,
    rows: (id) => structuredClone(need(id).rows),
    edit: (id, match, data) => {
      const at = now();
      for (const row of need(id).rows) if (match(row)) Object.assign(row, data, { updatedAt: at });
    },
    insert: (id, data) => {
      const at = now();
      need(id).rows.push({ ...data, id: nextId++, createdAt: at, updatedAt: at });
    },
    holdReads: (n, maxWaitMs = 500) => {
      Object.assign(hold, { n, maxWaitMs });
      if (n < 2) flush();
    },
    count: (method, suffix) => server.seen.filter((r) => r.method === method && r.path.endsWith(suffix)).length,
    stop: () => {
      flush();
      return server.stop();
    },
  };
}

/** Requests of n8n's public API sent with fetch and the API key, as a host would send them. */
export function fetchTableRequest(baseUrl: string, apiKey: string): TableRequest {
  return async (req) => {
    const url = new URL(`${baseUrl}${req.path}`);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const res = await fetch(url, {
      method: req.method,
      headers: { 'X-N8N-API-KEY': apiKey, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}
