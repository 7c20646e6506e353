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
      expect(await migrations(url)).toEqual([1]);
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
      expect(await migrations(url)).toEqual([1]);
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
