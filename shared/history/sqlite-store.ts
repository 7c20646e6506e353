import { constants, type Stats } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { InputError } from '../errors';
import { trustProblem } from '../util/trust';
import { SQLITE_DIALECT, sqlitePlaceholders } from './dialect';
import { HistoryError } from './errors';
import type { SqlExecutor, SqlRow } from './executor';
import { MediaFolder } from './media-folder';
import { applyMigrations, checkNotNewer, SCHEMA_VERSION, SELECT_SCHEMA_VERSION_SQL } from './migrations';
import type { SqlValue } from './sql';
import { SqlHistoryStore } from './sql-store';

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** How long a write waits for another process's write lock before it fails as `history_locked`. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * How long one statement may block the event loop waiting for another process's lock: node:sqlite
 * is synchronous, so SQLite's own busy wait would stop the host. Beyond it a transaction's start is
 * retried after an asynchronous pause until busyTimeoutMs has passed.
 */
const SYNC_BUSY_MS = 20;

/** Pause between two tries of a transaction's start, plus up to as much again at random. */
const BUSY_RETRY_MS = 10;

/**
 * The turns of every connection of this process to one database: two stores of one file in one
 * process (two config nodes, a host and its CLI call) never begin transactions over each other,
 * which on a synchronous connection would wait on a lock only this same thread can release.
 */
const turns = new Map<string, Promise<unknown>>();

/** Prepared statements kept per connection; searches make a few texts, the rest are constant. */
const STATEMENT_CACHE = 200;

/** How a SQLite history is opened. */
export interface SqliteHistoryOptions {
  /** The media folder (default: `<file>-media` beside the database). */
  media?: string;
  /** How long a write waits for another writer (ms, default 5000). */
  busyTimeoutMs?: number;
  /** What an InputError about the file names (default 'location'). */
  field?: string;
}

/**
 * Opens (creating when missing, 0600) the SQLite history in `file` and its media folder, after the
 * people file's trust checks: the folder must exist, be this user's (or root's) and not writable by
 * others; the file and its -wal/-shm companions must be regular files of this user's that nobody
 * else may write, never links. WAL with synchronous=NORMAL: a killed process loses at most the last
 * transactions, never the database. Migrations run under SQLite's write lock.
 */
export async function openSqliteHistory(file: string, options: SqliteHistoryOptions = {}): Promise<SqlHistoryStore> {
  const field = options.field ?? 'location';
  if (typeof file !== 'string' || file.trim() === '') throw new InputError('invalid_input', 'the history location must be a file path or a postgres:// URL', { field, limit: 'a file path' });
  const resolved = path.resolve(file);
  const name = `the history database ${resolved}`;
  const busy = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(busy) || busy < 0 || busy > 600_000) throw new InputError('invalid_input', 'busyTimeoutMs must be a whole number of ms from 0 to 600000', { field: 'busyTimeoutMs', limit: '0 to 600000' });
  await checkDatabasePath(resolved, name, field);
  const media = new MediaFolder(options.media ?? `${resolved}-media`, field === 'location' ? 'media' : field);
  await media.prepare();
  // One key for one file however its folder was reached, for the turns of this process's connections.
  const key = path.join(await realpath(path.dirname(resolved)), path.basename(resolved));
  const executor = new SqliteExecutor(resolved, key, name, busy, field);
  try {
    await executor.migrate();
  } catch (err) {
    await executor.close();
    throw err;
  }
  return new SqlHistoryStore({ engine: 'sqlite', dialect: SQLITE_DIALECT, executor, media, name: `the history ${resolved}` });
}

/** Refuses a database whose folder is missing or untrusted, or a file (or -wal/-shm) that is a link, not regular, another user's or writable by others; creates a missing file 0600. */
async function checkDatabasePath(file: string, name: string, field: string): Promise<void> {
  const refused = (why: string, limit: string): InputError => new InputError('invalid_input', `${name}${why}`, { field, limit });
  const folder = path.dirname(file);
  let folderStats: Stats;
  try {
    folderStats = await lstat(folder);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw refused(code === 'ENOENT' ? `: its folder ${folder} does not exist` : `: its folder ${folder} cannot be read (${code ?? 'error'})`, 'a file in an existing folder');
  }
  if (!folderStats.isDirectory()) throw refused(`: its folder ${folder} is a symbolic link or not a folder`, 'a file in a real folder');
  trusted(folderStats, `its folder ${folder}`, true, refused);
  for (const companion of [file, `${file}-wal`, `${file}-shm`]) {
    let stats: Stats;
    try {
      stats = await lstat(companion);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw refused(`: ${companion} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'a readable file');
      if (companion !== file) continue;
      // A new database: made here 0600 (SQLite would follow the umask), exclusively and never through a link.
      const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600).catch((e: NodeJS.ErrnoException) => {
        throw refused(` cannot be created (${e.code ?? 'error'})`, 'a writable folder');
      });
      await handle.close();
      continue;
    }
    const what = companion === file ? '' : ` (${path.basename(companion)})`;
    if (stats.isSymbolicLink()) throw refused(`${what} is a symbolic link; give the file itself`, 'a regular file');
    if (!stats.isFile()) throw refused(`${what} is not a regular file`, 'a regular file');
    trusted(stats, companion === file ? 'the file' : path.basename(companion), false, refused);
  }
}

function trusted(stats: Stats, what: string, rootMayOwn: boolean, refused: (why: string, limit: string) => InputError): void {
  const problem = trustProblem(stats, rootMayOwn);
  if (problem?.kind === 'owner') throw refused(`: ${what} belongs to another user (uid ${problem.uid}); they could read or plant visits`, 'a file and folder of your own');
  if (problem?.kind === 'writable') throw refused(`: ${what} can be written by other users (mode ${problem.mode}): chmod go-w it`, 'writable by you alone');
}

/**
 * node:sqlite's synchronous connection behind the executor's promises. Calls take turns (with every
 * other connection of this process to the same file), so a transaction's statements never
 * interleave with another call's.
 */
class SqliteExecutor implements SqlExecutor {
  readonly #db: DatabaseSync;
  readonly #name: string;
  readonly #busyMs: number;
  readonly #field: string;
  readonly #statements = new Map<string, StatementSync>();
  /** This database's key in `turns`. */
  readonly #key: string;
  #closed = false;
  /** The same connection without the queue, for the statements of a transaction holding its turn. */
  readonly #inner: SqlExecutor;

  constructor(file: string, key: string, name: string, busyMs: number, field: string) {
    this.#key = key;
    this.#name = name;
    this.#busyMs = busyMs;
    this.#field = field;
    const sqlite = loadSqlite();
    this.#db = this.#guard(() => new sqlite.DatabaseSync(file));
    try {
      this.#guard(() => {
        this.#db.exec(`PRAGMA busy_timeout = ${Math.min(busyMs, SYNC_BUSY_MS)}`);
        this.#db.exec('PRAGMA journal_mode = WAL');
        this.#db.exec('PRAGMA synchronous = NORMAL');
        // 16 MB of pages (SQLite's default is 2 MB): a search's index and row pages stay in memory across searches.
        this.#db.exec('PRAGMA cache_size = -16000');
      });
    } catch (err) {
      this.#db.close();
      throw err;
    }
    this.#inner = {
      all: async (text, params) => this.#guard(() => this.#all(text, params)),
      run: async (text, params) => this.#guard(() => this.#run(text, params)),
      transaction: (work) => work(this.#inner),
      close: () => this.close(),
    };
  }

  /** Applies pending migrations; an up-to-date database is only read, so opening it needs no write lock. */
  async migrate(): Promise<void> {
    const exists = (await this.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'history_migrations'", [])).length > 0;
    const current = exists ? Number((await this.all(SELECT_SCHEMA_VERSION_SQL, []))[0]?.version ?? 0) : 0;
    checkNotNewer(current, this.#name, this.#field);
    if (current < SCHEMA_VERSION) await this.transaction((tx) => applyMigrations(tx, SQLITE_DIALECT, this.#name, this.#field));
  }

  all(text: string, params: readonly SqlValue[]): Promise<SqlRow[]> {
    return this.#turn(() => this.#inner.all(text, params));
  }

  run(text: string, params: readonly SqlValue[]): Promise<number> {
    return this.#turn(() => this.#inner.run(text, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#turn(async () => {
      await this.#begin();
      try {
        const result = await work(this.#inner);
        this.#guard(() => this.#db.exec('COMMIT'));
        return result;
      } catch (err) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  /**
   * BEGIN IMMEDIATE: the write lock is taken at the start, not on the first write, so a transaction
   * that began never meets another writer. While another process holds it, tried again after a
   * pause (the event loop free meanwhile) until busyTimeoutMs has passed.
   */
  async #begin(): Promise<void> {
    const giveUpAt = Date.now() + this.#busyMs;
    for (;;) {
      try {
        this.#guard(() => this.#db.exec('BEGIN IMMEDIATE'));
        return;
      } catch (err) {
        if (!(err instanceof HistoryError && err.code === 'history_locked') || Date.now() >= giveUpAt) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS + Math.random() * BUSY_RETRY_MS));
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await turns.get(this.#key)?.catch(() => undefined);
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  #turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new HistoryError('history_closed', `${this.#name} is closed`));
    const run = (turns.get(this.#key) ?? Promise.resolve()).then(() => {
      if (!this.#db.isOpen) throw new HistoryError('history_closed', `${this.#name} is closed`);
      return work();
    });
    const tail = run.catch(() => undefined);
    turns.set(this.#key, tail);
    // The last turn of an idle database lets go of its entry.
    void tail.then(() => {
      if (turns.get(this.#key) === tail) turns.delete(this.#key);
    });
    return run;
  }

  #statement(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      if (this.#statements.size >= STATEMENT_CACHE) this.#statements.clear();
      statement = this.#db.prepare(sqlitePlaceholders(text));
      this.#statements.set(text, statement);
    }
    return statement;
  }

  #all(text: string, params: readonly SqlValue[]): SqlRow[] {
    return this.#statement(text).all(...params) as SqlRow[];
  }

  #run(text: string, params: readonly SqlValue[]): number {
    return Number(this.#statement(text).run(...params).changes);
  }

  /** SQLite's errors as the package's: locked and disk full are retryable HistoryErrors, not a database an InputError naming the file. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      throw sqliteError(err, this.#name, this.#busyMs, this.#field);
    }
  }
}

/**
 * node:sqlite, loaded when a SQLite history is opened rather than with the package: a host on a
 * Node.js without it (before 22.13) loads the package, and only opening such a history fails, saying why.
 */
function loadSqlite(): typeof import('node:sqlite') {
  let sqlite: typeof import('node:sqlite') | undefined;
  try {
    sqlite = process.getBuiltinModule?.('node:sqlite') as typeof import('node:sqlite') | undefined;
  } catch {
    sqlite = undefined;
  }
  if (!sqlite?.DatabaseSync) throw new HistoryError('history_failed', `a SQLite history needs Node.js 22.13 or later (node:sqlite); this is ${process.version}`);
  return sqlite;
}

/** A node:sqlite error as the package's error (the package's own errors pass through). */
function sqliteError(err: unknown, name: string, busyMs: number, field: string): unknown {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown };
  if (e?.code !== 'ERR_SQLITE_ERROR' || typeof e.errcode !== 'number') return err;
  const message = typeof e.message === 'string' ? e.message.slice(0, 300) : 'error';
  switch (e.errcode & 0xff) {
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
      return new HistoryError('history_locked', `${name} is locked by another writer for longer than ${busyMs} ms`, { retryable: true });
    case 13: // SQLITE_FULL
      return new HistoryError('history_full', `${name}: the disk is full`, { retryable: true });
    case 26: // SQLITE_NOTADB
      return new InputError('invalid_input', `${name} is not a SQLite database`, { field, limit: 'a SQLite database this package made, or a new file' });
    case 14: // SQLITE_CANTOPEN
      return new InputError('invalid_input', `${name} cannot be opened (${message})`, { field, limit: 'a readable and writable file' });
    default:
      return new HistoryError('history_failed', `${name}: ${message}`);
  }
}
