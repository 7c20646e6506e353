import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool, PoolClient } from 'pg';
import { ClientError, InputError } from '../errors';
import { POSTGRES_DIALECT } from './dialect';
import { HistoryError } from './errors';
import type { SqlExecutor, SqlRow } from './executor';
import { MediaFolder } from './media-folder';
import { applyMigrations, checkNotNewer, SCHEMA_VERSION, SELECT_SCHEMA_VERSION_SQL } from './migrations';
import { classify, describeFailure, openPool, postgresTarget, RETRY_DELAYS_MS, type PostgresTarget } from './postgres-connection';
import type { SqlValue } from './sql';
import { SqlHistoryStore } from './sql-store';

/** Connections one store keeps at most (each machine's store has its own pool). */
export const DEFAULT_POOL_SIZE = 10;

/**
 * The advisory lock every process takes before it migrates the schema (an arbitrary constant of
 * this package's, as a string: a bigint beyond 2^53 would lose digits as a JavaScript number).
 */
const MIGRATION_LOCK_KEY = '7302318641873520915';

/** How a PostgreSQL history is opened. */
export interface PostgresHistoryOptions {
  /** The media folder: one folder every machine writing into this database shares (e.g. a network mount). */
  media: string;
  /** Connections kept at most (1..100, default 10). */
  poolSize?: number;
  /** What an InputError about the URL names (default 'location'). */
  field?: string;
}

/**
 * Opens the history in the PostgreSQL database `url` names (`postgres://` or `postgresql://`), with
 * its media in a folder all machines share. The schema is migrated once, under an advisory lock, so
 * that several machines starting together do not collide. Failures of the connection are tried again
 * a bounded number of times, then thrown as a retryable HistoryError; no error names the URL's password.
 */
export async function openPostgresHistory(url: string, options: PostgresHistoryOptions): Promise<SqlHistoryStore> {
  const field = options?.field ?? 'location';
  if (typeof url !== 'string' || url.trim() === '') throw new InputError('invalid_input', 'the history location must be a postgres:// URL', { field, limit: 'a postgres:// or postgresql:// URL' });
  const target = postgresTarget(url, field);
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 100) throw new InputError('invalid_input', 'poolSize must be a whole number from 1 to 100', { field: 'poolSize', limit: '1 to 100' });
  if (typeof options.media !== 'string' || options.media.trim() === '') {
    throw new InputError('invalid_input', 'a PostgreSQL history needs a media folder that every machine writing into it shares', { field: 'media', limit: 'a folder path' });
  }
  const media = new MediaFolder(options.media, 'media');
  await media.prepare();
  const name = `the history ${target.safe}`;
  const executor = new PostgresExecutor(openPool(target, poolSize), target, name, field);
  try {
    await executor.migrate();
  } catch (err) {
    await executor.close();
    throw err;
  }
  return new SqlHistoryStore({ engine: 'postgres', dialect: POSTGRES_DIALECT, executor, media, name });
}

/**
 * pg's pool behind the history's executor. A statement outside a transaction is tried again on a
 * fresh connection when the connection failed (each is safe to repeat: a read, or a delete by key);
 * a transaction is tried again when it failed before its COMMIT was sent (it was rolled back), never
 * after, where it may have been committed.
 */
class PostgresExecutor implements SqlExecutor {
  readonly #pool: Pool;
  readonly #target: PostgresTarget;
  readonly #name: string;
  readonly #field: string;
  #closed = false;

  constructor(pool: Pool, target: PostgresTarget, name: string, field: string) {
    this.#pool = pool;
    this.#target = target;
    this.#name = name;
    this.#field = field;
  }

  /** Brings the schema up to date; a database already there is only read, so no lock is taken. */
  async migrate(): Promise<void> {
    const current = await this.#attempts(async () => {
      const [exists] = (await this.#pool.query<{ name: string | null }>("SELECT to_regclass('history_migrations')::text AS name")).rows;
      return exists?.name ? Number((await this.#pool.query<{ version: number }>(SELECT_SCHEMA_VERSION_SQL)).rows[0]?.version ?? 0) : 0;
    });
    checkNotNewer(current, this.#name, this.#field);
    if (current >= SCHEMA_VERSION) return;
    // The lock is the transaction's: it goes with COMMIT or ROLLBACK, or with the connection if it
    // dies. Not tried again on a conflict: under the lock there is none to get past.
    await this.#transaction(async (tx) => {
      await tx.all('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      await applyMigrations(tx, POSTGRES_DIALECT, this.#name, this.#field);
    }, false);
  }

  all(text: string, params: readonly SqlValue[]): Promise<SqlRow[]> {
    return this.#attempts(async () => (await this.#pool.query<SqlRow>(text, params as SqlValue[])).rows);
  }

  run(text: string, params: readonly SqlValue[]): Promise<number> {
    return this.#attempts(async () => (await this.#pool.query(text, params as SqlValue[])).rowCount ?? 0);
  }

  /**
   * One statement, its own (implicit) transaction. Tried again when it cannot have taken effect: no
   * connection was had, or the server answered with an error (the statement was rolled back). Not
   * when the connection broke while it ran without the server's word: it may have been committed,
   * and a write done twice would append its events twice.
   */
  write(text: string, params: readonly (SqlValue | SqlValue[])[]): Promise<SqlRow[]> {
    return this.#attempts(async (final) => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      const cut = (err: Error) => {
        broken = err;
      };
      client.on('error', cut);
      try {
        return (await client.query<SqlRow>(text, params as unknown[])).rows;
      } catch (err) {
        const failure = classify(err);
        if (failure.connection) broken = err as Error;
        const answered = typeof (err as { code?: unknown }).code === 'string' && SQLSTATE.test((err as { code: string }).code);
        if (failure.connection && !answered && !/not queryable/i.test((err as Error).message ?? '')) throw final(err, false);
        throw err;
      } finally {
        client.removeListener('error', cut);
        client.release(broken);
      }
    });
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#transaction(work, true);
  }

  /** `retryConflict`: a unique key taken by a concurrent transaction rolls this one back and tries it again. */
  #transaction<T>(work: (tx: SqlExecutor) => Promise<T>, retryConflict: boolean): Promise<T> {
    return this.#attempts(async (final) => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      let committing = false;
      // A checked-out connection has no listener of the pool's: cut between two statements, its
      // 'error' would otherwise be thrown into the process.
      const cut = (err: Error) => {
        broken = err;
      };
      client.on('error', cut);
      try {
        await client.query('BEGIN');
        try {
          const result = await work(transactionExecutor(client));
          committing = true;
          await client.query('COMMIT');
          return result;
        } catch (err) {
          if (!committing) await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      } catch (err) {
        const failure = classify(err);
        if (failure.connection) broken = err as Error;
        // After COMMIT was sent, the transaction may have been committed: it is not tried again.
        if (committing && failure.connection) throw final(err, false);
        // Two writers creating one visit at once: the loser's transaction is rolled back and tried again.
        if (retryConflict && failure.cause === '23505') throw Object.assign(err as Error, { retryTransaction: true });
        throw err;
      } finally {
        client.removeListener('error', cut);
        // A connection that failed is destroyed rather than handed out again.
        client.release(broken);
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end().catch(() => undefined);
  }

  /**
   * Runs `once` up to 1 + RETRY_DELAYS_MS.length times while it fails in a way another attempt can get
   * past, then throws the package's error. `final` builds that error at once (for a failure not to retry).
   */
  async #attempts<T>(once: (final: (err: unknown, retryable: boolean) => ClientError) => Promise<T>): Promise<T> {
    const final = (err: unknown, retryable: boolean) => Object.assign(this.#error(err, retryable), { [FINAL]: true });
    for (let attempt = 0; ; attempt++) {
      if (this.#closed) throw new HistoryError('history_closed', `${this.#name} is closed`);
      try {
        return await once(final);
      } catch (err) {
        if ((err as Record<symbol, unknown>)?.[FINAL]) throw err;
        if (err instanceof ClientError) throw err;
        const failure = classify(err);
        const again = failure.retryable || (err as { retryTransaction?: boolean }).retryTransaction === true;
        if (!again || this.#closed || attempt >= RETRY_DELAYS_MS.length) throw this.#error(err, failure.retryable, attempt + 1);
        await sleep(RETRY_DELAYS_MS[attempt]);
      }
    }
  }

  /** pg's error as the package's, without the URL's secrets. */
  #error(err: unknown, retryable: boolean, attempts = 1): ClientError {
    if (err instanceof ClientError) return err;
    const failure = classify(err);
    const words = describeFailure(err, this.#target);
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    if (failure.connection) return new HistoryError('history_failed', `${this.#name} cannot be reached${tries} (${failure.cause}): ${words}`, { retryable });
    if (failure.cause === '53100') return new HistoryError('history_full', `${this.#name}: the database server's disk is full`, { retryable: true });
    // Wrong credentials or a database that is not there: the settings are wrong, not the moment.
    if (failure.cause.startsWith('28') || failure.cause === '3D000') {
      return new InputError('invalid_input', `${this.#name} refused the connection: ${words}`, { field: this.#field, limit: 'a PostgreSQL URL with a user, password and database that exist' });
    }
    return new HistoryError('history_failed', `${this.#name}${tries}: ${words}`, { retryable });
  }
}

/** A SQLSTATE: the server's own answer, so the statement ended there. */
const SQLSTATE = /^([0-9][0-9A-Z]|P0|XX|F0|HV)[0-9A-Z]{3}$/;

/** Marks an error built by `final`: thrown as it is, not tried again. */
const FINAL = Symbol('final');

/** The executor of one transaction's connection (a nested transaction runs inside it). */
function transactionExecutor(client: PoolClient): SqlExecutor {
  const tx: SqlExecutor = {
    all: async (text, params) => (await client.query<SqlRow>(text, params as SqlValue[])).rows,
    run: async (text, params) => (await client.query(text, params as SqlValue[])).rowCount ?? 0,
    transaction: (work) => work(tx),
    close: async () => undefined,
  };
  return tx;
}
