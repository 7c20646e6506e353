import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ClientError, InputError } from '../../shared/errors';
import { openHistory, type HistoryStore } from '../../shared/history';
import { HistoryError } from '../../shared/history/errors';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres';
import { arrival, historyStoreContract } from './support/store-contract';

// The history on a real PostgreSQL (Debian's server, started in a temporary folder on 127.0.0.1 by
// test/support/postgres.ts, one per file): the store contract, two processes writing at once, the
// server stopped and started again mid-run, and errors that never show the URL's password.

const ROOT = path.resolve(__dirname, '..', '..');
const describePostgres = postgresSkipReason ? describe.skip : describe;
if (postgresSkipReason) console.log(`PostgreSQL history tests skipped: ${postgresSkipReason}`);

let server: TestPostgres;
let dir: string;
let count = 0;

beforeAll(async () => {
  if (postgresSkipReason) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'history-postgres-'));
  server = await startPostgres();
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A new, empty place on the test server: a schema of its own, chosen by the URL's search_path (a
 * schema takes milliseconds where a database takes most of a second). Its URL, with the password.
 */
async function freshDatabase(): Promise<string> {
  count += 1;
  const schema = `history_${count}`;
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  return `${server.url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** A history in a new schema with its own media folder. */
async function freshHistory(): Promise<{ url: string; media: string; store: HistoryStore }> {
  const url = await freshDatabase();
  const media = path.join(dir, `media-${count}`);
  return { url, media, store: await openHistory({ location: url, media }) };
}

describePostgres('the history on PostgreSQL', () => {
  historyStoreContract('postgres', async () => (await freshHistory()).store);

  it('opens postgresql:// URLs too, and an already migrated database without migrating it again', async () => {
    const { url, media, store } = await freshHistory();
    await store.writeVisit(arrival('v1', { person_id: 'p1' }));
    await store.close();
    const again = await openHistory({ location: url.replace(/^postgres:/, 'postgresql:'), media });
    try {
      expect(again.engine).toBe('postgres');
      expect((await again.get('v1'))?.person_id).toBe('p1');
      expect(await migrations(url)).toEqual([1, 2]);
    } finally {
      await again.close();
    }
  });

  it('brings a database of the first schema to the second: the index of visits by the face that matched, which forget and a search of someone use', async () => {
    const { url, media, store } = await freshHistory();
    await store.writeVisit(arrival('v1', { face_id: 'f1' }));
    await store.close();
    // As the first schema left it: no index by face, migration 1 alone.
    await sql(url, 'DROP INDEX visits_face_arrived');
    await sql(url, 'DELETE FROM history_migrations WHERE version = 2');
    expect(await migrations(url)).toEqual([1]);
    const again = await openHistory({ location: url, media });
    try {
      expect(await migrations(url)).toEqual([1, 2]);
      expect(await sql(url, "SELECT indexdef FROM pg_indexes WHERE indexname = 'visits_face_arrived' AND schemaname = current_schema()")).toEqual([{ indexdef: expect.stringContaining('(face_id, arrived_at, visit_id)') }]);
      expect(await again.erase({ face_ids: ['f1'] })).toEqual({ removed_visits: 1, removed_media: 0 });
    } finally {
      await again.close();
    }
  });

  it('migrates once when several stores open a new schema at the same moment', async () => {
    const url = await freshDatabase();
    const opened = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => openHistory({ location: url, media: path.join(dir, `media-${count}-${i}`) })));
    const stores = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    try {
      expect(opened.filter((o) => o.status === 'rejected')).toEqual([]);
      await Promise.all(stores.map((s, i) => s.writeVisit(arrival(`v${i}`, {}))));
      expect((await stores[0]!.search({})).visits).toHaveLength(4);
      expect(await migrations(url)).toEqual([1, 2]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('refuses a URL without a media folder, naming the field, and a wrong password without showing it', async () => {
    await expect(openHistory({ location: server.url })).rejects.toMatchObject({ field: 'media', code: 'invalid_input' });
    const wrong = server.url.replace(server.password, 'not-the-password-4f1c');
    const err = await openHistory({ location: wrong, media: path.join(dir, 'media-wrong') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ field: 'location', retryable: false });
    expect((err as Error).message).toContain(`postgres://postgres@127.0.0.1:${server.port}`);
    expect(JSON.stringify({ message: (err as Error).message, json: err, stack: (err as Error).stack })).not.toContain('not-the-password-4f1c');
    // A URL that cannot be read: refused before any connection, still without its password.
    const unreadable = await openHistory({ location: 'postgres://postgres:s3cret-9d2e@127.0.0.1:port/db', media: path.join(dir, 'media-wrong') }).catch((e: unknown) => e);
    expect(unreadable).toMatchObject({ field: 'location', code: 'invalid_input' });
    expect(JSON.stringify({ message: (unreadable as Error).message, stack: (unreadable as Error).stack })).not.toContain('s3cret-9d2e');
  });

  it('two processes writing visits into one database at once lose no row, nor an event of a visit both write', async () => {
    const { url, media, store } = await freshHistory();
    const [a, b] = [writer(url, media, 'a', WRITES), writer(url, media, 'b', WRITES)];
    try {
      // Both go at once, once both have opened the history: they create the shared visits in step.
      await Promise.all([a.ready, b.ready]);
      a.go();
      b.go();
      await Promise.all([a.done, b.done]);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const result = await store.search({ limit: 1000, ...(cursor ? { cursor } : {}) });
        seen.push(...result.visits.map((v) => v.visit_id));
        cursor = result.next;
        if (!cursor) break;
      }
      const expected = ['a', 'b', 'shared'].flatMap((w) => Array.from({ length: WRITES }, (_, i) => `${w}-${i}`));
      expect(seen.sort()).toEqual(expected.sort());
      const own = await store.get(`b-${WRITES - 1}`);
      expect(own?.events.map((e) => e.event)).toEqual(['arrived', 'left']);
      for (let i = 0; i < WRITES; i++) {
        const shared = await store.get(`shared-${i}`);
        expect({ i, writers: shared?.events.map((e) => e.face_id).sort() }).toEqual({ i, writers: ['a', 'b'] });
      }
    } finally {
      a.stop();
      b.stop();
      await store.close();
    }
  }, 120_000);

  it('a connection cut in the middle of a write is tried again on a fresh one, and the write is kept once', async () => {
    const { url, store } = await freshHistory();
    const holder = new Client({ connectionString: url });
    const watcher = new Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
    try {
      await store.writeVisit(arrival('v1', {}));
      // The visit's row held by another transaction: the store's write waits on it, mid-transaction.
      await holder.query('BEGIN');
      await holder.query("SELECT visit_id FROM visits WHERE visit_id = 'v1' FOR UPDATE");
      const write = store.writeVisit({ visit_id: 'v1', left_at: '2026-11-20T10:05:00Z', events: [{ event: 'left', time: '2026-11-20T10:05:00Z', reason: 'gone' }] });
      let pid: number | undefined;
      for (let i = 0; i < 200 && pid === undefined; i++) {
        const { rows } = await watcher.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'vision-streaming-history' AND wait_event_type = 'Lock'");
        pid = rows[0]?.pid;
        if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(pid).toBeDefined();
      // Its connection cut by the server, as a failover or a restart cuts it.
      await watcher.query('SELECT pg_terminate_backend($1)', [pid]);
      await holder.query('COMMIT');
      await write;
      expect((await store.get('v1'))?.events.map((e) => e.event)).toEqual(['arrived', 'left']);
    } finally {
      await holder.end();
      await watcher.end();
      await store.close();
    }
  });

  it('PostgreSQL stopped mid-run: a retryable error without the password, then works again once it is back', async () => {
    const { store } = await freshHistory();
    try {
      await store.writeVisit(arrival('before', {}));
      await server.stop();
      const err = await store.writeVisit(arrival('during', {})).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HistoryError);
      expect(err).toMatchObject({ code: 'history_failed', retryable: true });
      expect((err as ClientError).message).toMatch(/cannot be reached after 3 attempts \(ECONNREFUSED\)/);
      const search = await store.search({}).catch((e: unknown) => e);
      expect(search).toMatchObject({ code: 'history_failed', retryable: true });
      for (const e of [err, search]) expect(JSON.stringify({ message: (e as Error).message, json: e, stack: (e as Error).stack })).not.toContain(server.password);
      await server.start();
      await store.writeVisit(arrival('after', { arrived_at: '2026-11-20T11:00:00Z' }));
      expect((await store.search({})).visits.map((v) => v.visit_id)).toEqual(['after', 'before']);
    } finally {
      if (!(await isUp())) await server.start();
      await store.close();
    }
  }, 120_000);
});

/** A statement on the database of `url`, its rows. */
async function sql(url: string, text: string): Promise<Record<string, unknown>[]> {
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    return (await admin.query(text)).rows as Record<string, unknown>[];
  } finally {
    await admin.end();
  }
}

/** The versions in the history's migrations table. */
async function migrations(url: string): Promise<number[]> {
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    return (await admin.query<{ version: number }>('SELECT version FROM history_migrations ORDER BY version')).rows.map((r) => r.version);
  } finally {
    await admin.end();
  }
}

async function isUp(): Promise<boolean> {
  const probe = new Client({ connectionString: server.url, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
    return true;
  } catch {
    return false;
  }
}

/** Visits each writer process writes of its own, and shared visits both write. */
const WRITES = 25;

/** A writer process: ready once it has opened the history, goes when told, done when it has exited. */
interface Writer {
  ready: Promise<void>;
  go(): void;
  done: Promise<void>;
  /** Kills the process if it still runs (a failed test). */
  stop(): void;
}

/**
 * A child process (the TypeScript sources compiled on require) that opens the history, says ready,
 * waits for a line on stdin, then writes `count` visits of its own (`${prefix}-n`: arrival, then left)
 * and a match of its own into each of `count` shared visits (`shared-n`, created by whichever writer
 * comes first).
 */
function writer(url: string, media: string, prefix: string, count: number): Writer {
  const script = `
    require(${JSON.stringify(path.join(ROOT, 'shared/util/compile-on-require.ts'))}).compileTypeScriptOnRequire();
    const { openHistory } = require(${JSON.stringify(path.join(ROOT, 'shared/history/index.ts'))});
    const prefix = process.argv[2];
    const count = Number(process.argv[3]);
    (async () => {
      const store = await openHistory({ location: process.env.HISTORY_URL, media: process.argv[1], poolSize: 4 });
      process.stdout.write('ready\\n');
      await new Promise((resolve) => process.stdin.once('data', resolve));
      process.stdin.destroy();
      const at = (i, s) => new Date(Date.UTC(2026, 10, 20, 10, i, s)).toISOString();
      for (let i = 0; i < count; i++) {
        await store.writeVisit({ visit_id: 'shared-' + i, kind: 'stranger', room_id: 'room-1', stream_id: 'cam-1', arrived_at: at(i, 0), events: [{ event: 'match', time: at(i, 1), score: 0.9, face_id: prefix }] });
        const visit_id = prefix + '-' + i;
        await store.writeVisit({ visit_id, kind: 'person', person_id: prefix, room_id: 'room-1', stream_id: 'cam-' + prefix, arrived_at: at(i, 0), events: [{ event: 'arrived', time: at(i, 0) }] });
        await store.writeVisit({ visit_id, left_at: at(i, 2), events: [{ event: 'left', time: at(i, 2), reason: 'gone' }] });
      }
      await store.close();
    })().catch((err) => { console.error(err); process.exit(1); });
  `;
  // The URL through the environment, not the command line, where other users could read it.
  const child = spawn(process.execPath, ['-e', script, media, prefix, String(count)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HISTORY_URL: url } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${prefix} exited ${code}: ${stderr.slice(-1000)}`))));
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    done.then(() => reject(new Error(`writer ${prefix} ended before it was ready`)), reject);
  });
  // Whoever awaits them sees their failures; a test that failed earlier leaves them unawaited.
  ready.catch(() => undefined);
  done.catch(() => undefined);
  return { ready, done, go: () => child.stdin.end('go\n'), stop: () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')) };
}
