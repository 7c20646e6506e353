import { InputError } from '../errors';
import { openPostgresHistory } from './postgres-store';
import { openSqliteHistory } from './sqlite-store';
import type { HistoryStore } from './types';

export type * from './types';
export { HistoryError, type HistoryErrorCode } from './errors';
export { DEFAULT_RETENTION, SqlHistoryStore } from './sql-store';
export { openSqliteHistory, DEFAULT_BUSY_TIMEOUT_MS, type SqliteHistoryOptions } from './sqlite-store';
export { openPostgresHistory, DEFAULT_POOL_SIZE, type PostgresHistoryOptions } from './postgres-store';
export { DEFAULT_LIMIT, MAX_LIMIT } from './query';

/** Where the history is kept and how it is opened. */
export interface OpenHistoryOptions {
  /** A file path (SQLite) or a `postgres://` / `postgresql://` URL (PostgreSQL). */
  location: string;
  /** The media folder (for SQLite default `<file>-media` beside the database; for PostgreSQL required: a folder every machine shares). */
  media?: string;
  /** How long a SQLite write waits for another process's write lock (ms, default 5000). */
  busyTimeoutMs?: number;
  /** PostgreSQL: connections kept at most (default 10). */
  poolSize?: number;
}

/** True for a location that names a PostgreSQL server. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location);
}

/** Opens the history the location names: a file path opens SQLite, a PostgreSQL URL the PostgreSQL engine. */
export async function openHistory(options: OpenHistoryOptions): Promise<HistoryStore> {
  const location = options?.location;
  if (typeof location !== 'string' || location.trim() === '') {
    throw new InputError('invalid_input', 'the history location must be a file path or a postgres:// URL', { field: 'location', limit: 'a file path or a postgres:// URL' });
  }
  if (isPostgresLocation(location)) {
    if (options.media === undefined) throw new InputError('invalid_input', 'a PostgreSQL history needs a media folder that every machine writing into it shares', { field: 'media', limit: 'a folder path' });
    return openPostgresHistory(location, { media: options.media, poolSize: options.poolSize });
  }
  return openSqliteHistory(location, { media: options.media, busyTimeoutMs: options.busyTimeoutMs });
}
