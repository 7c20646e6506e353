/**
 * What differs between the history's two engines, kept to these few words: every statement in
 * sql.ts and migrations.ts is written once, with `$1, $2…` placeholders, for both. Times are integer
 * milliseconds since the epoch (BIGINT) and JSON is TEXT in both, so range queries compare numbers
 * on an index in either engine and no engine-specific type reaches the rows.
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column definition of a row id the database numbers itself, in the order rows were added. */
  readonly autoId: string;
  /** Appended to a SELECT of a row the transaction then rewrites (PostgreSQL locks the row; SQLite's write transaction already keeps other writers out). */
  readonly forUpdate: string;
}

/** SQLite through node:sqlite. */
export const SQLITE_DIALECT: SqlDialect = { name: 'sqlite', autoId: 'INTEGER PRIMARY KEY', forUpdate: '' };

/** PostgreSQL through pg. */
export const POSTGRES_DIALECT: SqlDialect = { name: 'postgres', autoId: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', forUpdate: ' FOR UPDATE' };

/** `$1, $2…` as SQLite's numbered `?1, ?2…` (the statements hold no `$` anywhere else). */
export function sqlitePlaceholders(text: string): string {
  return text.replace(/\$(\d+)/g, '?$1');
}
