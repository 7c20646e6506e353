import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, lstat, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../shared/errors';
import { FilePeopleStore, peopleKey } from '../../shared/people/file-store';
import { readPeople } from '../../shared/people';
import { PeopleError } from '../../shared/people/errors';
import type { PeopleDocument, Person } from '../../shared/people/types';
import { FileLockError, withFileLock } from '../../shared/util/private-file';

// The people file against the real file system: concurrent writers (two processes, two stores of
// one process), the trust checks, the seal, and the lock file.

const SECRET = 'file-store-test-secret-9f2c';
const KEY = peopleKey({ clientId: 'client-a', clientSecret: SECRET });
const COLLECTION = '0f8fad5b-d9cb-469f-a165-70867728950e';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'people-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function person(name: string): Person {
  return { person_id: `p_${randomUUID()}`, name, faces: [{ face_id: randomUUID(), added_at: new Date().toISOString(), from: 'photo' }], not_faces: [] };
}

function adding(name: string): (doc: PeopleDocument) => PeopleDocument {
  return (doc) => ({ ...doc, collectionId: COLLECTION, people: [...doc.people, person(name)] });
}

/** What a reader (the directory, the watcher) makes of the file: its checked document. */
async function read(s: FilePeopleStore, collectionId = COLLECTION): Promise<PeopleDocument> {
  return readPeople(await s.load(), collectionId, s);
}

function store(file = path.join(dir, 'people', 'people.json'), o: Partial<ConstructorParameters<typeof FilePeopleStore>[1]> = {}): FilePeopleStore {
  return new FilePeopleStore(file, { collectionId: COLLECTION, key: KEY, ...o });
}

/** A child process (the TypeScript sources compiled on require) that adds `count` people named `${prefix}-n` one update at a time. */
function writer(file: string, prefix: string, count: number): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const script = `
    require(${JSON.stringify(path.join(root, 'shared/util/compile-on-require.ts'))}).compileTypeScriptOnRequire();
    const { FilePeopleStore, peopleKey } = require(${JSON.stringify(path.join(root, 'shared/people/file-store.ts'))});
    const { randomUUID } = require('node:crypto');
    const store = new FilePeopleStore(process.argv[1], { collectionId: ${JSON.stringify(COLLECTION)}, key: peopleKey({ clientId: 'client-a', clientSecret: ${JSON.stringify(SECRET)} }) });
    (async () => {
      for (let i = 0; i < ${count}; i++) {
        await store.update((doc) => ({ ...doc, collectionId: ${JSON.stringify(COLLECTION)}, people: [...doc.people, { person_id: 'p_' + randomUUID(), name: ${JSON.stringify(prefix)} + '-' + i, faces: [], not_faces: [] }] }));
      }
    })().catch((err) => { console.error(err); process.exit(1); });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${prefix} exited ${code}: ${stderr.slice(-1000)}`))));
  });
}

it('two processes writing the file at once lose nothing', async () => {
  const file = path.join(dir, 'people', 'people.json');
  await Promise.all([writer(file, 'a', 25), writer(file, 'b', 25)]);
  const doc = await read(store(file));
  const names = doc.people.map((p) => p.name).sort();
  const expected = [...Array.from({ length: 25 }, (_, i) => `a-${i}`), ...Array.from({ length: 25 }, (_, i) => `b-${i}`)].sort();
  expect(names).toEqual(expected);
  // The lock file is gone once both are done.
  await expect(lstat(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
}, 60_000);

it('two stores of one file with interleaved updates lose nothing, and each tells of its own changes', async () => {
  const one = store();
  const two = store();
  let changes = 0;
  one.on('changed', () => (changes += 1));
  await Promise.all(Array.from({ length: 15 }, (_, i) => [one.update(adding(`one-${i}`)), two.update(adding(`two-${i}`))]).flat());
  const doc = await one.load();
  expect(doc!.people).toHaveLength(30);
  expect(new Set(doc!.people.map((p) => p.name)).size).toBe(30);
  expect(changes).toBe(15);
});

it('writes a sealed file of mode 0600 in a folder of mode 0700 that holds no secret; loads it back', async () => {
  const s = store();
  expect(await s.load()).toBeUndefined();
  const saved = await s.update(adding('Alice'));
  expect(saved.seal).toMatch(/^[0-9a-f]{64}$/);
  const file = path.join(dir, 'people', 'people.json');
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
  const text = await readFile(file, 'utf8');
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(Buffer.from(KEY).toString('hex'));
  expect(await s.load()).toEqual(saved);
});

it("a file of another collection is refused with an error naming the file, and is not overwritten", async () => {
  const file = path.join(dir, 'people', 'people.json');
  await store(file).update(adding('Alice'));
  const before = await readFile(file, 'utf8');
  const other = store(file, { collectionId: 'another-collection' });
  const refused = await read(other, 'another-collection').catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(PeopleError);
  expect(refused).toMatchObject({ code: 'people_store_mismatch', message: expect.stringContaining(file) });
  expect((refused as Error).message).toMatch(/belongs to another face collection/);
  await expect(other.update(adding('Bob'))).rejects.toMatchObject({ code: 'people_store_mismatch', message: expect.stringContaining(file) });
  expect(await readFile(file, 'utf8')).toBe(before);
});

it('a broken seal, or a file sealed with other credentials, is refused naming the file', async () => {
  const file = path.join(dir, 'people', 'people.json');
  await store(file).update(adding('Alice'));
  const doc = JSON.parse(await readFile(file, 'utf8')) as PeopleDocument;
  doc.people[0].name = 'Mallory';
  await writeFile(file, JSON.stringify(doc));
  const broken = await read(store(file)).catch((e: unknown) => e);
  expect(broken).toMatchObject({ code: 'people_store_untrusted', message: expect.stringContaining(file) });
  expect((broken as Error).message).toMatch(/seal does not match/);

  await rm(file);
  await store(file).update(adding('Alice'));
  const otherKey = store(file, { key: peopleKey({ clientId: 'client-a', clientSecret: 'another-secret' }) });
  await expect(read(otherKey)).rejects.toMatchObject({ code: 'people_store_untrusted' });
  await expect(otherKey.update(adding('Bob'))).rejects.toMatchObject({ code: 'people_store_untrusted', message: expect.stringContaining(file) });
});

it('a link, a file others may write, a folder others may write, and text that is not JSON are refused as input naming the file', async () => {
  const folder = path.join(dir, 'people');
  const file = path.join(folder, 'people.json');
  await store(file).update(adding('Alice'));

  await chmod(file, 0o622);
  const writable = await store(file).load().catch((e: unknown) => e);
  expect(writable).toBeInstanceOf(InputError);
  expect(writable).toMatchObject({ field: 'people', message: expect.stringMatching(/people\.json: the file can be written by other users \(mode 0622\)/) });
  await chmod(file, 0o600);

  const link = path.join(folder, 'link.json');
  await symlink(file, link);
  await expect(store(link).load()).rejects.toMatchObject({ field: 'people', message: expect.stringMatching(/link\.json is a symbolic link/) });

  await chmod(folder, 0o777);
  await expect(store(file).update(adding('Bob'))).rejects.toMatchObject({ field: 'people', message: expect.stringMatching(/its folder .* can be written by other users/) });
  await chmod(folder, 0o700);

  await writeFile(file, 'not json{');
  await expect(store(file).load()).rejects.toMatchObject({ field: 'people', message: `the people file ${file} is not JSON` });
});

it('a lock left by a crashed writer is taken over; a live one makes a writer wait and then give up', async () => {
  const file = path.join(dir, 'people', 'people.json');
  await store(file).update(adding('Alice'));
  const lock = `${file}.lock`;
  await writeFile(lock, '12345\n', { mode: 0o600 });
  const old = new Date(Date.now() - 60_000);
  await utimes(lock, old, old);
  await store(file).update(adding('Bob'));
  expect((await store(file).load())!.people.map((p) => p.name)).toEqual(['Alice', 'Bob']);

  await writeFile(lock, '12345\n', { mode: 0o600 });
  const refused = await withFileLock(file, async () => 'ran', { waitMs: 300, name: 'the people file' }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(FileLockError);
  expect(refused).toMatchObject({ code: 'file_locked', retryable: true, message: expect.stringContaining('the people file is locked by another writer') });
  await rm(lock);
  await expect(withFileLock(file, async () => 'ran', { waitMs: 300 })).resolves.toBe('ran');
  await expect(lstat(lock)).rejects.toMatchObject({ code: 'ENOENT' });

  // A holder that outlived the stale time and lost its lock to another writer leaves that writer's lock alone.
  await withFileLock(file, async () => {
    await rm(lock);
    await writeFile(lock, 'another writer\n', { mode: 0o600 });
  });
  expect(await readFile(lock, 'utf8')).toBe('another writer\n');
});
