import { InputError } from '../errors';
import type { SqlDialect } from './dialect';
import type { SqlExecutor } from './executor';

/**
 * The history's schema, as numbered migrations both engines apply in order, each in one
 * transaction with its row in `history_migrations`. A database whose newest migration is newer
 * than this code knows is refused rather than written (an older package must not guess at it).
 */
export interface Migration {
  version: number;
  name: string;
  statements(dialect: SqlDialect): string[];
}

/** The table that says which migrations a database has. */
export const MIGRATIONS_TABLE_SQL = 'CREATE TABLE IF NOT EXISTS history_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)';

/** The newest migration a database has (0 for none). */
export const SELECT_SCHEMA_VERSION_SQL = 'SELECT COALESCE(MAX(version), 0) AS version FROM history_migrations';

/** Records a migration as applied. */
export const INSERT_MIGRATION_SQL = 'INSERT INTO history_migrations (version, name, applied_at) VALUES ($1, $2, $3)';

/** Every migration, oldest first; versions are 1, 2, 3… without gaps. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'visits, their events and media',
    statements: (d) => [
      // ends_at: left_at, or for a visit that goes on the time of its latest event (what a sweep by age
      // compares, and with arrived_at what bounds a search by time range).
      `CREATE TABLE visits (
        visit_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        person_id TEXT,
        name TEXT,
        name_key TEXT,
        visitor_id TEXT,
        face_id TEXT,
        label TEXT,
        room_id TEXT NOT NULL,
        stream_id TEXT NOT NULL,
        stream_label TEXT,
        arrived_at BIGINT NOT NULL,
        left_at BIGINT,
        ends_at BIGINT NOT NULL,
        duration_s DOUBLE PRECISION,
        best_score DOUBLE PRECISION,
        quality TEXT,
        updated_at BIGINT NOT NULL
      )`,
      // The visit id ends each index as it ends the searches' order (newest first, ties by id): a
      // page is read in index order and stops at its limit, with no sort of the whole range.
      'CREATE INDEX visits_person_arrived ON visits (person_id, arrived_at, visit_id)',
      'CREATE INDEX visits_visitor_arrived ON visits (visitor_id, arrived_at, visit_id)',
      'CREATE INDEX visits_stream_arrived ON visits (stream_id, arrived_at, visit_id)',
      'CREATE INDEX visits_name_arrived ON visits (name_key, arrived_at, visit_id)',
      'CREATE INDEX visits_arrived ON visits (arrived_at, visit_id)',
      // Visits that go on (few): a range search finds those that arrived long before its start here.
      'CREATE INDEX visits_open_arrived ON visits (arrived_at, visit_id) WHERE left_at IS NULL',
      `CREATE TABLE visit_events (
        event_id ${d.autoId},
        visit_id TEXT NOT NULL,
        event TEXT NOT NULL,
        event_at BIGINT NOT NULL,
        score DOUBLE PRECISION,
        reason TEXT,
        face_id TEXT
      )`,
      'CREATE INDEX visit_events_visit ON visit_events (visit_id, event_id)',
      `CREATE TABLE media (
        visit_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        mime TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (visit_id, kind)
      )`,
      // The longest span (ends_at - arrived_at) ever written: how far before `since` a visit that
      // overlaps it can have arrived, so a range search stays a bounded range on arrived_at.
      'CREATE TABLE history_meta (meta_key TEXT PRIMARY KEY, meta_value BIGINT NOT NULL)',
      "INSERT INTO history_meta (meta_key, meta_value) VALUES ('longest_visit_ms', 0)",
    ],
  },
  {
    version: 2,
    name: 'visits by the face that matched',
    // Forget erases, and a search of someone finds, the visits a watcher without people kept under
    // the collection face alone: by this index, not a scan of every visit.
    statements: () => ['CREATE INDEX visits_face_arrived ON visits (face_id, arrived_at, visit_id)'],
  },
];

/** The newest schema this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The migrations a database at `current` still needs, oldest first. */
export function pendingMigrations(current: number): Migration[] {
  return MIGRATIONS.filter((m) => m.version > current);
}

/**
 * Brings a database to SCHEMA_VERSION inside the caller's write transaction (the engine keeps other
 * processes out meanwhile: SQLite's write lock, PostgreSQL's advisory lock). Refuses a database
 * newer than this code, naming it as `where`. The version the database is at afterwards.
 */
export async function applyMigrations(tx: SqlExecutor, dialect: SqlDialect, where: string, field = 'location'): Promise<number> {
  await tx.run(MIGRATIONS_TABLE_SQL, []);
  const current = Number((await tx.all(SELECT_SCHEMA_VERSION_SQL, []))[0]?.version ?? 0);
  checkNotNewer(current, where, field);
  for (const migration of pendingMigrations(current)) {
    for (const statement of migration.statements(dialect)) await tx.run(statement, []);
    await tx.run(INSERT_MIGRATION_SQL, [migration.version, migration.name, Date.now()]);
  }
  return SCHEMA_VERSION;
}

/** Refuses a database a newer version of the package wrote: this code would not know its rows. */
export function checkNotNewer(current: number, where: string, field = 'location'): void {
  if (current > SCHEMA_VERSION) {
    throw new InputError('invalid_input', `${where} has schema version ${current}, newer than this package knows (${SCHEMA_VERSION}): update the package`, { field, limit: `schema version at most ${SCHEMA_VERSION}` });
  }
}
