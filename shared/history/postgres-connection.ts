import type { CustomTypesConfig, Pool } from 'pg';
import { InputError } from '../errors';

// The PostgreSQL side of the history that has nothing to do with visits: the URL (checked, and told
// without its password), a bounded pool, and what a failure of pg was (whether the connection
// failed, whether another attempt can help), told without the URL's secret.

/** Longest a caller waits for a connection from the pool before the attempt counts as failed. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Longest one statement may run on the server. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** Waits before the 2nd and 3rd attempt of an operation whose connection failed. */
export const RETRY_DELAYS_MS = [200, 800] as const;

/** A PostgreSQL connection URL, checked: its safe description and the secrets to keep out of every message. */
export interface PostgresTarget {
  url: string;
  /** `postgres://user@host:port/database`: no password, no query string. */
  safe: string;
  secrets: string[];
}

/** Checks a PostgreSQL URL and notes what must never be shown of it. Throws InputError naming `field` for a URL it cannot read. */
export function postgresTarget(url: string, field = 'location'): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError('invalid_input', 'the history location is not a valid PostgreSQL URL (postgres://user:password@host:port/database)', { field, limit: 'a postgres:// or postgresql:// URL' });
  }
  // A unix socket is named by ?host=/folder (or a %2F-encoded host) instead.
  const host = parsed.hostname || parsed.searchParams.get('host') || '';
  if (!/^postgres(ql)?:$/i.test(parsed.protocol) || !host) {
    throw new InputError('invalid_input', 'the history location is not a PostgreSQL URL with a host (postgres://user:password@host:port/database)', { field, limit: 'a postgres:// or postgresql:// URL' });
  }
  const secrets = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (value) {
      secrets.add(value);
      secrets.add(encodeURIComponent(value));
    }
  };
  if (parsed.password) {
    add(parsed.password);
    add(safeDecode(parsed.password));
  }
  for (const key of ['password', 'sslpassword']) add(parsed.searchParams.get(key));
  add(process.env.PGPASSWORD);
  const user = parsed.username ? `${safeDecode(parsed.username)}@` : '';
  const port = parsed.port ? `:${parsed.port}` : '';
  return { url, safe: `postgres://${user}${safeDecode(host)}${port}${parsed.pathname === '/' ? '' : parsed.pathname}`, secrets: [...secrets].sort((a, b) => b.length - a.length) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The text with every secret of the target replaced by `***`. */
export function redact(text: string, target: PostgresTarget): string {
  let out = text;
  for (const secret of target.secrets) out = out.split(secret).join('***');
  return out;
}

/**
 * BIGINT (int8) and NUMERIC as JavaScript numbers, for this pool only (pg's global parsers stay as the
 * host set them): the history's BIGINTs are milliseconds and byte counts, far below 2^53, and its
 * NUMERICs are sums of them.
 */
function numbersAsNumbers(types: typeof import('pg').types): CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      (oid === types.builtins.INT8 || oid === types.builtins.NUMERIC) && format !== 'binary' ? (value: string) => Number(value) : types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
  };
}

/** A bounded pool on the target; its idle connections' failures (a server restart) are absorbed, not thrown into the process. */
export function openPool(target: PostgresTarget, max: number): Pool {
  // pg is loaded when a PostgreSQL history is opened, not with the package: most hosts keep SQLite.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as typeof import('pg');
  const pool = new pg.Pool({
    connectionString: target.url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    // The pool's idle connections must not keep a host process alive that is otherwise done.
    allowExitOnIdle: true,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    application_name: 'vision-streaming-history',
    types: numbersAsNumbers(pg.types),
  });
  // An idle connection cut by the server (restart, failover) emits here; the pool drops it and opens
  // another when needed. Without a listener the process would crash.
  pool.on('error', () => undefined);
  return pool;
}

/** SQLSTATE classes and codes of failures that another attempt on a fresh connection can get past. */
const RETRYABLE_SQLSTATE = /^(08|57P0[123]|53300|40001|40P01)/;

/** Node's codes of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT']);

/** What a failure of pg was: whether the connection failed (the statement may not have run) and whether trying again could help. */
export interface PostgresFailure {
  /** SQLSTATE, Node's code, or `connection_lost` / `connect_timeout` for pg's own messages. */
  cause: string;
  connection: boolean;
  retryable: boolean;
}

/** Classifies an error thrown by pg. */
export function classify(err: unknown): PostgresFailure {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (NETWORK_CODES.has(code)) return { cause: code, connection: true, retryable: true };
  if (/^([0-9][0-9A-Z]|P0|XX|F0|HV)[0-9A-Z]{3}$/.test(code)) {
    const retryable = RETRYABLE_SQLSTATE.test(code);
    return { cause: code, connection: code.startsWith('08') || code.startsWith('57P0') || code === '53300', retryable };
  }
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message)) return { cause: 'connect_timeout', connection: true, retryable: true };
  if (/Connection terminated|not queryable|Client has encountered a connection error/i.test(message)) return { cause: 'connection_lost', connection: true, retryable: true };
  return { cause: code || 'unknown', connection: false, retryable: false };
}

/** The server's or Node's words for a failure, on one line, without the target's secrets. */
export function describeFailure(err: unknown, target: PostgresTarget): string {
  const message = err instanceof Error ? err.message : String(err);
  return redact(message.replace(/\s+/g, ' ').trim().slice(0, 300), target);
}
