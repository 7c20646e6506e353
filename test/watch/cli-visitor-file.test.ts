import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../cli/main';
import { VisitorFile } from '../../cli/visitor-file';
import type { VisitorDocument } from '../../shared/watch';

// The visitors file of `vision-streaming watch` lists faces the watcher will remove from the
// collection: it is trusted as ssh trusts its keys, saved without following a planted link, and
// no error quotes what it holds. These cases stop before anything is contacted (exit 2).

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'visitor-file-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x', '--remember-visitors', ...args], { VS_CLIENT_SECRET: 'not-a-real-secret' }, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    interrupted: new Promise(() => undefined),
  });
  return { code, stderr: err.join('\n'), stdout: out.join('\n') };
}

const doc: VisitorDocument = { kind: 'vision-streaming-visitors', version: 1, collectionId: 'c', visitors: [] };

async function folder(name: string, mode = 0o700): Promise<string> {
  const f = path.join(dir, name);
  await mkdir(f, { recursive: true });
  await chmod(f, mode);
  return f;
}

test('a visitors file another user can write, or in a folder another user can write, exits 2 saying why', async () => {
  const f = await folder('writable-file');
  const file = path.join(f, 'visitors.json');
  await writeFile(file, JSON.stringify(doc));
  await chmod(file, 0o666);
  const r = await run(['--visitors', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--visitors .*visitors\.json: the file can be written by other users \(mode 0666\)/);

  await chmod(file, 0o600);
  const open = await folder('open-folder', 0o777);
  const inOpen = path.join(open, 'visitors.json');
  await writeFile(inOpen, JSON.stringify(doc), { mode: 0o600 });
  const r2 = await run(['--visitors', inOpen]);
  expect(r2.code).toBe(2);
  expect(r2.stderr).toMatch(/its folder .*open-folder can be written by other users \(mode 0777\)/);
  // Group-writable is refused too, as ssh refuses it.
  await chmod(f, 0o770);
  expect((await run(['--visitors', file])).stderr).toMatch(/its folder .* can be written by other users \(mode 0770\)/);
  await chmod(f, 0o700);
  expect((await run(['--visitors', file, '--left-after', '0'])).stderr).toMatch(/leftAfterSeconds/);
});

test('a visitors file owned by another user is refused', async () => {
  let file: string;
  if (process.getuid!() === 0) {
    file = path.join(await folder('theirs'), 'visitors.json');
    await writeFile(file, JSON.stringify(doc), { mode: 0o600 });
    await chown(file, 4242, 4242);
  } else {
    // Not root: a file root owns, in a folder root owns (which is allowed), stands for another user's.
    file = '/etc/passwd';
  }
  const r = await run(['--visitors', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/the file belongs to another user/);
});

test('a symbolic link as the visitors file is refused; errors never quote the file', async () => {
  const f = await folder('links');
  const target = path.join(f, 'real.json');
  await writeFile(target, JSON.stringify(doc), { mode: 0o600 });
  const link = path.join(f, 'visitors.json');
  await symlink(target, link);
  const r = await run(['--visitors', link]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/is a symbolic link/);

  const shadow = path.join(f, 'shadow');
  await writeFile(shadow, 'root:$6$secret-hash-text:19000:0:99999:7:::\n', { mode: 0o600 });
  const r2 = await run(['--visitors', shadow]);
  expect(r2.code).toBe(2);
  expect(r2.stderr).toMatch(/is not JSON/);
  expect(r2.stderr).not.toMatch(/root|secret-hash/);

  const nul = path.join(f, 'null.json');
  await writeFile(nul, 'null', { mode: 0o600 });
  const r3 = await run(['--visitors', nul]);
  expect(r3.code).toBe(2);
  expect(r3.stderr).toMatch(/is not a visitor list/);
  expect(r3.stderr).not.toMatch(/Cannot read properties/);
});

test('saves: a new file of an unpredictable name, mode 0600, never through a planted link; a symlinked file is not written through', async () => {
  const f = await folder('saves');
  const file = path.join(f, 'visitors.json');
  const victim = path.join(f, 'victim.txt');
  await writeFile(victim, 'untouched');
  // Links planted at the names the command used to write to.
  for (const name of [`visitors.json.${process.pid}.tmp`, `.visitors.json.tmp`]) await symlink(victim, path.join(f, name));
  const store = new VisitorFile(file, { clientId: 'x', clientSecret: 'not-a-real-secret' });
  await store.check();
  await store.save(doc);
  await store.save({ ...doc, visitors: [{ visitorId: 'a1', firstSeen: '2026-01-01T00:00:00.000Z', lastSeen: '2026-01-01T00:00:00.000Z', visits: 1 }] });
  expect(await readFile(victim, 'utf8')).toBe('untouched');
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await lstat(file)).isFile()).toBe(true);
  expect(await store.load()).toMatchObject({ visitors: [{ visitorId: 'a1' }] });
  // Nothing left behind but the planted links.
  expect((await readdir(f)).sort()).toEqual(['.visitors.json.tmp', 'victim.txt', `visitors.json.${process.pid}.tmp`, 'visitors.json'].sort());
  // The key comes from the credentials: another secret gives another key, none without credentials.
  expect(store.key).toHaveLength(32);
  expect(Buffer.from(new VisitorFile(file, { clientId: 'x', clientSecret: 'other' }).key!).equals(Buffer.from(store.key!))).toBe(false);
  expect(new VisitorFile(file).key).toBeUndefined();
});
