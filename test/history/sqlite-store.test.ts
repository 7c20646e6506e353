import { mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import os from 'node:os';
import path from 'node:path';
import { openHistory } from '../../shared/history';
import { sqlitePlaceholders } from '../../shared/history/dialect';
import { searchSql } from '../../shared/history/sql';
import { arrival, historyStoreContract } from './support/store-contract';

// The history store contract against SQLite through node:sqlite: a fresh database file and media
// folder for each test.

let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'history-sqlite-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

historyStoreContract('sqlite', async () => {
  count += 1;
  return openHistory({ location: path.join(dir, `history-${count}.db`) });
});

it('brings a database of the first schema to the second: forget and a search of someone find visits by the face that matched on its index, not a scan', async () => {
  const file = path.join(dir, 'first-schema.db');
  const store = await openHistory({ location: file });
  await store.writeVisit(arrival('v1', { face_id: 'f1' }));
  await store.close();
  // As the first schema left it: no index by face, migration 1 alone.
  const db = new DatabaseSync(file);
  try {
    db.exec('DROP INDEX visits_face_arrived; DELETE FROM history_migrations WHERE version = 2');
  } finally {
    db.close();
  }
  const again = await openHistory({ location: file });
  await again.close();
  const reader = new DatabaseSync(file, { readOnly: true });
  try {
    expect(reader.prepare('SELECT version FROM history_migrations ORDER BY version').all()).toEqual([{ version: 1 }, { version: 2 }]);
    const plan = (text: string, ...params: (string | number)[]): string =>
      (reader.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan('SELECT visit_id FROM visits WHERE face_id = ?1 LIMIT ?2', 'f1', 500)).toMatch(/USING (COVERING )?INDEX visits_face_arrived/);
    // A search of someone: each of its three ways on an index, no scan of every visit.
    const search = searchSql({ who: { person_id: 'p1', face_ids: ['f1', 'f2'] }, take: 10 });
    const who = plan(sqlitePlaceholders(search.text), ...(search.params as (string | number)[]));
    expect(who).toContain('visits_face_arrived');
    expect(who).not.toContain('SCAN');
  } finally {
    reader.close();
  }
});
