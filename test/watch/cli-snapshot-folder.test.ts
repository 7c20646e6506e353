import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkSnapshotFolder } from '../../cli/snapshot-folder';
import { main } from '../../cli/main';

// The --snapshots folder will hold pictures of people: as the --visitors file, it is trusted only
// when this user owns it and no one else can write it. These cases stop before anything is
// contacted (exit 2).

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'snapshot-folder-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function run(snapshots: string): Promise<{ code: number; stderr: string }> {
  const err: string[] = [];
  const code = await main(['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x', '--snapshots', snapshots], { VS_CLIENT_SECRET: 'not-a-real-secret' }, {
    stdout: () => undefined,
    stderr: (l) => err.push(l),
    interrupted: new Promise(() => undefined),
  });
  return { code, stderr: err.join('\n') };
}

async function folder(name: string, mode: number): Promise<string> {
  const f = path.join(dir, name);
  await mkdir(f, { recursive: true });
  await chmod(f, mode);
  return f;
}

test('a folder others can write (0777, 1777 as /tmp, group-writable 0770) exits 2 naming --snapshots and the mode; nothing is written there', async () => {
  for (const [name, mode, shown] of [['open', 0o777, '0777'], ['sticky', 0o1777, '0777'], ['group', 0o770, '0770']] as const) {
    const f = await folder(name, mode);
    const r = await run(f);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--snapshots ${f}: can be written by other users (mode ${shown})`);
    expect(r.stderr).toMatch(/chmod go-w it/);
    expect(await readdir(f)).toEqual([]);
  }
});

test('a link to a folder others can write is refused as that folder is', async () => {
  const target = await folder('link-target', 0o777);
  const link = path.join(dir, 'link');
  await symlink(target, link);
  const r = await run(link);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--snapshots .*link: can be written by other users \(mode 0777\)/);
});

test('a folder another user owns is refused', async () => {
  let f: string;
  if (process.getuid!() === 0) {
    f = await folder('theirs', 0o700);
    await chown(f, 4242, 4242);
  } else {
    // Not root: a folder root owns stands for another user's.
    f = '/';
  }
  const r = await run(f);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--snapshots .*: belongs to another user \(uid \d+\)/);
});

test('a folder of its own, or a new one (made 0700), is accepted and left as it was', async () => {
  const own = await folder('own', 0o755);
  await expect(checkSnapshotFolder(own)).resolves.toBeUndefined();
  expect(await readdir(own)).toEqual([]);
  const made = path.join(dir, 'new', 'snaps');
  await expect(checkSnapshotFolder(made)).resolves.toBeUndefined();
  expect((await stat(made)).mode & 0o777).toBe(0o700);
});
