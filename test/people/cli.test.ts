import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { INTERRUPTED, PHOTOS_REFUSED, peopleMain } from '../../cli/people';
import { CLIENT_ID, CLIENT_SECRET, startHarness, type Harness } from '../client/harness';
import { astronautFaceOfSize, faceApiSample, faceOfSize, gradientJpeg, mirrorJpeg } from '../support/images';
import { faceOfB } from '../watch/support/clip';
import { buildPackage } from '../watch/support/build';

// `vision-streaming people` as a script runs it: flags and VS_ variables, the secret in
// VS_CLIENT_SECRET, one JSON object on stdout, against the sandbox's vision API on 127.0.0.1.

let h: Harness;
let dir: string;
let collectionId: string;
let peopleFile: string;
let photos: { a1: string; a2: string; b: string; blank: string };

beforeAll(async () => {
  h = await startHarness({ eagerModel: true });
  dir = await mkdtemp(path.join(os.tmpdir(), 'people-cli-'));
  collectionId = (await h.client.createCollection()).collectionId;
  peopleFile = path.join(dir, 'people.json');
  const bFace = await faceOfB((jpeg) => h.client.detectFaces(jpeg));
  photos = { a1: path.join(dir, 'a1.jpg'), a2: path.join(dir, 'a2.jpg'), b: path.join(dir, 'b.jpg'), blank: path.join(dir, 'blank.jpg') };
  await writeFile(photos.a1, astronautFaceOfSize(200));
  await writeFile(photos.a2, mirrorJpeg(astronautFaceOfSize(230)));
  await writeFile(photos.b, faceOfSize(faceApiSample(1), bFace, 200));
  await writeFile(photos.blank, gradientJpeg());
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Ran {
  code: number;
  out: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

async function people(...args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const env = { VS_CLIENT_ID: CLIENT_ID, VS_CLIENT_SECRET: CLIENT_SECRET, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_COLLECTION: collectionId, VS_PEOPLE: peopleFile };
  const code = await peopleMain(args, env, { stdout: (l) => (stdout += `${l}\n`), stderr: (l) => (stderr += `${l}\n`), interrupted: new Promise(() => undefined) });
  const first = stdout.split('\n').find((l) => l.startsWith('{'));
  return { code, out: first ? (JSON.parse(first) as Record<string, unknown>) : {}, stdout, stderr };
}

const faceIds = async () => new Set((await h.client.listFaces(collectionId)).map((f) => f.faceId));

test('add from two photos, list, rename, not, forget: one JSON object each; forget leaves no face of the person in the collection', async () => {
  const added = await people('add', '--name', 'Alice', '--image', photos.a1, '--image', photos.a2);
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  const person = added.out.person as { person_id: string; name: string; faces: { face_id: string }[] };
  expect(person.name).toBe('Alice');
  expect(person.faces).toHaveLength(2);
  expect((await stat(peopleFile)).mode & 0o777).toBe(0o600);
  const file = await readFile(peopleFile, 'utf8');
  expect(file).not.toContain(CLIENT_SECRET);

  const listed = await people('list');
  expect(listed.code).toBe(0);
  expect(listed.out).toMatchObject({ collection_id: collectionId, capacity: 1000, people: [{ person_id: person.person_id, name: 'Alice', faces: 2, not_faces: 0 }] });

  const renamed = await people('rename', '--name', 'alice', '--to', 'Alice Smith');
  expect(renamed.code).toBe(0);
  expect(renamed.out).toMatchObject({ person_id: person.person_id, name: 'Alice Smith' });

  const not = await people('not', '--person', person.person_id, '--image', photos.b);
  expect(not.code).toBe(0);
  const notFace = (not.out.result as { face_id: string }).face_id;
  expect((not.out.person as { not_faces: { face_id: string }[] }).not_faces.map((f) => f.face_id)).toEqual([notFace]);

  const forgotten = await people('forget', '--name', 'Alice Smith');
  expect(forgotten.code).toBe(0);
  expect(forgotten.out).toMatchObject({ person_id: person.person_id, name: 'Alice Smith', removed_not_faces: [notFace] });
  expect(new Set(forgotten.out.removed_faces as string[])).toEqual(new Set(person.faces.map((f) => f.face_id)));
  const left = await faceIds();
  for (const f of [...person.faces.map((x) => x.face_id), notFace]) expect(left.has(f)).toBe(false);
  expect((await people('list')).out.people).toEqual([]);
  // Forgetting twice is not an error: the receipt says so.
  const again = await people('forget', '--person', person.person_id);
  expect(again.code).toBe(0);
  expect(again.out).toMatchObject({ already_forgotten: true });
}, 120_000);

test('bad input: exit 2 naming the flag, nothing sent; an unknown flag names the closest one', async () => {
  const before = h.requests();
  const cases: [string[], RegExp][] = [
    [['add', '--image', photos.a1], /--name is required/],
    [['add', '--name', 'x'.repeat(101), '--image', photos.a1], /--name/],
    [['add', '--name', 'Bob'], /--image FILE .* or --visitor ID/],
    [['add', '--name', 'Bob', '--image', path.join(dir, 'missing.jpg')], /--image .*missing\.jpg cannot be read: ENOENT/],
    [['rename', '--name', 'Nobody', '--to', 'Somebody'], /--name: .*no person/],
    [['add-face', '--name', 'Bob', '--image', photos.a1, '--visitor', 'v1'], /--image FILE or --visitor ID/],
    [['forget', '--name', 'Bob', '--person', 'p_1'], /--name or --person, not both/],
    [['list', '--colection', 'x'], /unknown flag --colection \(did you mean --collection\?\)/],
    [['rename', '--name', 'Bob'], /--to is required/],
  ];
  for (const [args, message] of cases) {
    const r = await people(...args);
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  }
  expect(h.requests()).toBe(before);
  const unknown = await people('rename-all');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/unknown action "rename-all"; actions: list, add, add-face/);
}, 60_000);

test('a photo without a face: the person is not made and the reason is given; the service failing: exit 1', async () => {
  const r = await people('add', '--name', 'Blank', '--image', photos.blank);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/face/i);
  expect((await people('list')).out.people).toEqual([]);
  h.sandbox.setFaults({ '*': { serverError: 1 } });
  try {
    const failed = await people('list');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/vision-streaming people list: /);
    expect(failed.stderr).not.toContain(CLIENT_SECRET);
  } finally {
    h.sandbox.setFaults({});
  }
}, 120_000);

test('two commands writing at once lose nothing', async () => {
  const [x, y] = await Promise.all([people('add', '--name', 'Xavier', '--image', photos.a1), people('add', '--name', 'Yolanda', '--image', photos.b)]);
  expect([x.code, y.code]).toEqual([0, 0]);
  const names = ((await people('list')).out.people as { name: string }[]).map((p) => p.name).sort();
  expect(names).toEqual(['Xavier', 'Yolanda']);
  for (const name of names) expect((await people('forget', '--name', name)).code).toBe(0);
}, 120_000);

test('a people file that is not to be trusted is refused naming --people and why, before anything is sent', async () => {
  const link = path.join(dir, 'people-link.json');
  await writeFile(peopleFile, '');
  await rm(peopleFile);
  expect((await people('add', '--name', 'Trudy', '--image', photos.a1)).code).toBe(0);
  await symlink(peopleFile, link);
  const shared = path.join(dir, 'people-shared.json');
  await copyFile(peopleFile, shared);
  await chmod(shared, 0o666);
  const before = h.requests();
  for (const [file, why] of [
    [link, /symbolic link/],
    [shared, /written by other users/],
  ] as const) {
    const r = await people('list', '--people', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--people/);
    expect(r.stderr).toMatch(why);
  }
  expect(h.requests()).toBe(before);
  expect((await people('forget', '--name', 'Trudy')).code).toBe(0);
}, 60_000);

test('--help lists the actions and the flags', async () => {
  const r = await people('--help');
  expect(r.code).toBe(0);
  for (const word of ['list', 'add-face', 'remove-face', 'import-labels', '--collection', '--people', '--image', '--visitor', '--to']) expect(r.stdout).toContain(word);
});

test('add exits 4 when some photos were refused, and still prints the whole answer', async () => {
  const r = await people('add', '--name', 'Partly', '--image', photos.a1, '--image', photos.blank);
  expect(r.code).toBe(PHOTOS_REFUSED);
  expect((r.out.results as { status: string }[]).map((x) => x.status)).toEqual(['added', 'refused']);
  expect(r.out.person).toMatchObject({ name: 'Partly' });
  expect((await people('forget', '--name', 'Partly')).code).toBe(0);
}, 60_000);

test('check lists the faces nothing records and --remove takes them out; --remove elsewhere is refused', async () => {
  const orphan = (await h.client.addFace(collectionId, await readFile(photos.b))).faceId;
  expect((await people('add', '--name', 'Checked', '--image', photos.a1)).code).toBe(0);
  const listed = await people('check');
  expect(listed.code).toBe(0);
  expect(listed.out).toMatchObject({ collection_id: collectionId, removed: [] });
  expect(listed.out.orphans).toContainEqual({ face_id: orphan });
  expect(listed.out.orphans).toHaveLength(1);
  expect((await faceIds()).has(orphan)).toBe(true);
  const removed = await people('check', '--remove');
  expect(removed.code).toBe(0);
  expect(removed.out).toMatchObject({ orphans: [{ face_id: orphan }], removed: [orphan] });
  expect((await faceIds()).has(orphan)).toBe(false);
  expect((await people('check')).out.orphans).toEqual([]);
  const misplaced = await people('list', '--remove');
  expect(misplaced.code).toBe(2);
  expect(misplaced.stderr).toMatch(/--remove is a flag of people check/);
  expect((await people('forget', '--name', 'Checked')).code).toBe(0);
}, 60_000);

describe('the command as a process', () => {
  let bin: string;
  const children = new Set<ChildProcess>();
  beforeAll(async () => {
    const build = path.join(dir, 'package');
    await mkdir(build);
    bin = (await buildPackage(build)).bin;
  }, 120_000);
  afterEach(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children.clear();
  });

  /** Starts `vision-streaming people ...`; `ended(ms)` gives its exit, or undefined while it still runs after ms. */
  function start(...args: string[]) {
    const env = { PATH: process.env.PATH, VS_CLIENT_ID: CLIENT_ID, VS_CLIENT_SECRET: CLIENT_SECRET, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_COLLECTION: collectionId, VS_PEOPLE: peopleFile };
    const child = spawn(process.execPath, [bin, 'people', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
    return { child, ended: (ms: number) => Promise.race([exit, sleep(ms, undefined, { ref: false }).then(() => undefined)]) };
  }

  test('a people or visitors file that is a FIFO or a folder is refused at once, naming the flag', async () => {
    const fifo = path.join(dir, 'people.fifo');
    execFileSync('mkfifo', [fifo]);
    const folder = path.join(dir, 'people-folder.json');
    await mkdir(folder);
    for (const [flag, file] of [
      ['--people', fifo],
      ['--visitors', fifo],
      ['--people', folder],
    ]) {
      const r = await start('list', flag, file).ended(20_000);
      expect({ flag, file, code: r?.code }).toEqual({ flag, file, code: 2 });
      expect(r!.stderr).toContain(flag);
      expect(r!.stderr).toMatch(/not a regular file/);
    }
  }, 90_000);

  test('SIGTERM ends it while a service call is still waiting: exit 130', async () => {
    // The faces listing answers in a minute: far longer than a stop may take.
    h.sandbox.setFaults({ faces: { latencyMs: 60_000 } });
    try {
      const before = h.hits('faces');
      const run = start('list');
      for (let i = 0; i < 400 && h.hits('faces') === before; i++) await sleep(50);
      expect(h.hits('faces')).toBeGreaterThan(before);
      run.child.kill('SIGTERM');
      const r = await run.ended(10_000);
      expect(r?.code).toBe(INTERRUPTED);
      expect(r!.stderr).toMatch(/stopped before it finished/);
    } finally {
      // Ends the held listing too, so nothing waits out its minute.
      h.sandbox.clearFaults();
    }
  }, 90_000);
});
