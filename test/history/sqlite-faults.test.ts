import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { InputError } from '../../shared/errors';
import { HistoryError, openHistory } from '../../shared/history';
import type { HistoryStore } from '../../shared/history/types';
import { arrival } from './support/store-contract';

// The SQLite history's file against the real file system and real other processes: what it makes
// (modes, WAL), what it refuses (a missing folder, links, another user's or world-writable files,
// a file that is no database, a newer schema, a lock held too long), and a writer killed mid-write.

const ROOT = path.resolve(__dirname, '..', '..');
let dir: string;
const open: HistoryStore[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'history-faults-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const store of open.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function opened(location: string, o: { media?: string; busyTimeoutMs?: number } = {}): Promise<HistoryStore> {
  const store = await openHistory({ location, ...o });
  open.push(store);
  return store;
}

async function refusal(location: string, o: { media?: string } = {}): Promise<InputError> {
  const err = await openHistory({ location, ...o }).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

it('makes the database 0600 in WAL mode, its media folder 0700 beside it and media files 0600', async () => {
  const file = path.join(dir, 'history.db');
  const store = await opened(file);
  await store.writeVisit(arrival('v1', {}));
  const ref = await store.putMedia('v1', 'face', Buffer.from('jpeg'), 'image/jpeg');
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await stat(`${file}-media`)).mode & 0o777).toBe(0o700);
  expect((await stat(path.dirname(store.mediaPath(ref)))).mode & 0o777).toBe(0o700);
  expect((await stat(store.mediaPath(ref))).mode & 0o777).toBe(0o600);
  expect(store.mediaPath(ref).startsWith(`${file}-media${path.sep}`)).toBe(true);
  const reader = new DatabaseSync(file, { readOnly: true });
  try {
    expect(reader.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(reader.prepare('SELECT version, name FROM history_migrations').all()).toEqual([
      { version: 1, name: 'visits, their events and media' },
      { version: 2, name: 'visits by the face that matched' },
    ]);
  } finally {
    reader.close();
  }
});

it('keeps media in the folder given', async () => {
  const media = path.join(dir, 'shared-media');
  const store = await opened(path.join(dir, 'history.db'), { media });
  await store.writeVisit(arrival('v1', {}));
  const ref = await store.putMedia('v1', 'clip', Buffer.from('mp4'), 'video/mp4');
  expect(store.mediaPath(ref).startsWith(`${media}${path.sep}`)).toBe(true);
  expect(await readdir(dir)).not.toContain('history.db-media');
});

it('refuses a database whose folder does not exist, and makes no folder', async () => {
  const err = await refusal(path.join(dir, 'missing', 'history.db'));
  expect(err).toMatchObject({ field: 'location' });
  expect(err.message).toContain('does not exist');
  expect(await readdir(dir)).toEqual([]);
});

it('refuses a symbolic link, a folder in the file\'s place, and a link in place of the -wal file', async () => {
  const real = path.join(dir, 'real.db');
  await (await opened(real)).close();
  const link = path.join(dir, 'link.db');
  await symlink(real, link);
  expect((await refusal(link)).message).toContain('symbolic link');
  const folder = path.join(dir, 'folder.db');
  await mkdir(folder);
  expect((await refusal(folder)).message).toContain('not a regular file');
  const wal = path.join(dir, 'wal.db');
  await symlink(path.join(dir, 'elsewhere'), `${wal}-wal`);
  const err = await refusal(wal);
  expect(err.message).toContain('wal.db-wal');
  expect(err.message).toContain('symbolic link');
});

it('refuses a database or folder others may write, and another user\'s database', async () => {
  const file = path.join(dir, 'history.db');
  await (await opened(file)).close();
  await chmod(file, 0o666);
  expect((await refusal(file)).message).toContain('can be written by other users (mode 0666)');
  await chmod(file, 0o600);
  const shared = path.join(dir, 'shared');
  await mkdir(shared);
  await chmod(shared, 0o777);
  expect((await refusal(path.join(shared, 'history.db'))).message).toContain('can be written by other users');
  if (process.getuid?.() === 0) {
    await chown(file, 4242, 4242);
    expect((await refusal(file)).message).toContain('belongs to another user (uid 4242)');
  } else {
    console.log('another user\'s file: not checked, making one needs root');
  }
});

it('refuses a media folder that is a symbolic link, naming the media setting', async () => {
  const target = path.join(dir, 'target');
  await mkdir(target, { mode: 0o700 });
  await symlink(target, path.join(dir, 'history.db-media'));
  const err = await refusal(path.join(dir, 'history.db'));
  expect(err).toMatchObject({ field: 'media' });
  expect(err.message).toContain('symbolic link');
});

it('refuses to read a media file that became a link, another user\'s or writable by others, and to write into a media folder that became a link', async () => {
  const store = await opened(path.join(dir, 'history.db'));
  await store.writeVisit(arrival('v1', {}));
  const ref = await store.putMedia('v1', 'face', Buffer.from('jpeg'), 'image/jpeg');
  const file = store.mediaPath(ref);
  await chmod(file, 0o666);
  await expect(store.readMedia(ref)).rejects.toThrow('can be written by other users (mode 0666)');
  await chmod(file, 0o600);
  if (process.getuid?.() === 0) {
    await chown(file, 4242, 4242);
    await expect(store.readMedia(ref)).rejects.toThrow('belongs to another user (uid 4242)');
  }
  await rm(file);
  const secret = path.join(dir, 'secret.txt');
  await writeFile(secret, 'not a face', { mode: 0o600 });
  await symlink(secret, file);
  const err = await store.readMedia(ref).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  expect(err).toMatchObject({ field: 'media' });
  expect((err as InputError).message).toContain('symbolic link');
  // The hash folder swapped for a link to a folder elsewhere: nothing is written through it.
  const folder = path.dirname(file);
  await rm(folder, { recursive: true });
  const elsewhere = path.join(dir, 'elsewhere');
  await mkdir(elsewhere, { mode: 0o700 });
  await symlink(elsewhere, folder);
  await expect(store.putMedia('v1', 'face', Buffer.from('jpeg'), 'image/jpeg')).rejects.toThrow('symbolic link or not a folder');
  expect(await readdir(elsewhere)).toEqual([]);
});

it('refuses a file that is not a SQLite database, and a database of a newer schema, and leaves them as they were', async () => {
  const text = path.join(dir, 'notes.db');
  await writeFile(text, 'x'.repeat(4096), { mode: 0o600 });
  const err = await refusal(text);
  expect(err.message).toContain('is not a SQLite database');
  expect((await stat(text)).size).toBe(4096);

  const newer = path.join(dir, 'newer.db');
  await (await opened(newer)).close();
  const db = new DatabaseSync(newer);
  db.exec("INSERT INTO history_migrations (version, name, applied_at) VALUES (99, 'from the future', 0)");
  db.close();
  const refused = await refusal(newer);
  expect(refused.message).toContain('schema version 99');
});

/** A child process holding SQLite's write lock on `file` until it is killed. */
async function lockHolder(file: string): Promise<ChildProcess> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    db.exec("INSERT INTO history_meta (meta_key, meta_value) VALUES ('held', 1)");
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
  return child;
}

it('a write while another process holds the write lock past the wait fails as history_locked (retryable) naming the file, the event loop free meanwhile, and reads go on', async () => {
  const file = path.join(dir, 'history.db');
  const store = await opened(file, { busyTimeoutMs: 500 });
  await store.writeVisit(arrival('before', {}));
  const holder = await lockHolder(file);
  let ticked = false;
  const timer = setTimeout(() => (ticked = true), 20);
  const { err, tickedWhileWaiting } = await store.writeVisit(arrival('during', {})).then(
    () => ({ err: undefined, tickedWhileWaiting: ticked }),
    (e: unknown) => ({ err: e, tickedWhileWaiting: ticked }),
  );
  clearTimeout(timer);
  // The host's timers ran while the write waited for the lock: the wait did not hold the thread.
  expect(tickedWhileWaiting).toBe(true);
  expect(err).toBeInstanceOf(HistoryError);
  expect(err).toMatchObject({ code: 'history_locked', retryable: true });
  expect((err as HistoryError).message).toContain(file);
  expect((err as HistoryError).message).toContain('500 ms');
  expect((await store.search({})).visits.map((v) => v.visit_id)).toEqual(['before']);
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  await store.writeVisit(arrival('after', { arrived_at: '2026-11-20T11:00:00Z' }));
  expect((await store.search({})).visits.map((v) => v.visit_id)).toEqual(['after', 'before']);
});

it('a writer killed (SIGKILL) mid-write leaves a database that opens with every visit it had written', async () => {
  const file = path.join(dir, 'history.db');
  await (await opened(file)).close();
  const script = `
    require(${JSON.stringify(path.join(ROOT, 'shared/util/compile-on-require.ts'))}).compileTypeScriptOnRequire();
    const { openHistory } = require(${JSON.stringify(path.join(ROOT, 'shared/history/index.ts'))});
    (async () => {
      const store = await openHistory({ location: process.argv[1] });
      for (let i = 0; ; i++) {
        const id = 'k-' + String(i).padStart(6, '0');
        await store.writeVisit({ visit_id: id, kind: 'person', person_id: 'p1', room_id: 'r', stream_id: 's', arrived_at: new Date(Date.UTC(2026, 10, 20) + i * 1000).toISOString(), events: [{ event: 'arrived', time: '2026-11-20T00:00:00Z' }] });
        await store.writeVisit({ visit_id: id, left_at: new Date(Date.UTC(2026, 10, 20) + i * 1000 + 500).toISOString(), events: [{ event: 'left', time: '2026-11-20T00:00:01Z', reason: 'gone' }] });
        process.stdout.write(id + '\\n');
      }
    })().catch((err) => { console.error(err); process.exit(1); });
  `;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const written: string[] = [];
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (id) => {
      written.push(id);
      // Killed while it goes on writing: the next visit's transaction is under way or about to be.
      if (written.length === 200) child.kill('SIGKILL');
    });
    child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the writer exited ${code}`))));
  });
  const store = await opened(file);
  const kept = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await store.search({ person_id: 'p1', limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const v of result.visits) kept.add(v.visit_id);
    cursor = result.next;
    if (!cursor) break;
  }
  for (const id of written) expect(kept.has(id)).toBe(true);
  expect(await store.get(written[written.length - 1]!)).toMatchObject({ duration_s: 0.5, events: [{ event: 'arrived' }, { event: 'left' }] });
  await store.writeVisit(arrival('after-crash', {}));
  const check = new DatabaseSync(file, { readOnly: true });
  try {
    expect(check.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
  } finally {
    check.close();
  }
}, 60_000);

it('two stores of one database, writing at once, lose nothing and see each other\'s visits', async () => {
  const file = path.join(dir, 'history.db');
  const one = await opened(file);
  const two = await opened(file);
  await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? one : two).writeVisit(arrival(`t-${String(i).padStart(2, '0')}`, { arrived_at: new Date(Date.UTC(2026, 10, 20, 10, i)).toISOString() }))));
  const seen = (await one.search({ limit: 100 })).visits.map((v) => v.visit_id);
  expect(seen).toHaveLength(40);
  expect(await two.search({ limit: 100 })).toEqual(await one.search({ limit: 100 }));
  expect((await lstat(file)).isFile()).toBe(true);
});
