import type { SqlValue } from './sql';

/** A row as an engine gives it: column name to value. */
export type SqlRow = Record<string, unknown>;

/**
 * What the history's core needs of an engine: run the shared statements (`$1, $2…` placeholders)
 * with parameters, and group writes in a transaction. SQLite's and PostgreSQL's engines each give one.
 */
export interface SqlExecutor {
  /** The rows of a query. */
  all(text: string, params: readonly SqlValue[]): Promise<SqlRow[]>;
  /** Runs a statement; how many rows it changed. */
  run(text: string, params: readonly SqlValue[]): Promise<number>;
  /**
   * Runs one statement that changes rows as a transaction of its own and returns its rows (arrays
   * as parameters). Tried again only where it cannot have taken effect: never after its connection
   * broke while it ran. Offered by an engine where each statement is a round trip to a server
   * (PostgreSQL), so that a visit's write is one; in process (SQLite) a transaction costs none.
   */
  write?(text: string, params: readonly (SqlValue | SqlValue[])[]): Promise<SqlRow[]>;
  /** Runs `work` in one write transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Lets go of the connection(s); idempotent. */
  close(): Promise<void>;
}
