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
  /** The function of the largest of several values (PostgreSQL's GREATEST, SQLite's many-argument MAX). */
  readonly greatest: 'GREATEST' | 'MAX';
  /** Parameters of a visit's write carry their column's type (`$2::bigint`): PostgreSQL cannot always infer it. */
  readonly typedParameters: boolean;
}

/** SQLite through node:sqlite. */
export const SQLITE_DIALECT: SqlDialect = { name: 'sqlite', autoId: 'INTEGER PRIMARY KEY', greatest: 'MAX', typedParameters: false };

/** PostgreSQL through pg. */
export const POSTGRES_DIALECT: SqlDialect = { name: 'postgres', autoId: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', greatest: 'GREATEST', typedParameters: true };

/** `$1, $2…` as SQLite's numbered `?1, ?2…` (the statements hold no `$` anywhere else). */
export function sqlitePlaceholders(text: string): string {
  return text.replace(/\$(\d+)/g, '?$1');
}
