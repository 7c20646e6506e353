import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../cli/main';
import { CLIENT_ID, CLIENT_SECRET, startHarness, type Harness } from '../client/harness';
import { FIXTURES_DIR, astronautFaceOfSize, mirrorJpeg } from '../support/images';
import { buildPackage } from '../watch/support/build';

// detect, compare, collections and rooms as a script runs them: the bin under the package's Node,
// the credentials in VS_ variables (the secret in VS_CLIENT_SECRET only), one JSON value on stdout,
// against the sandbox on 127.0.0.1.

let h: Harness;
let dir: string;
let bin: string;
const ASTRONAUT = path.join(FIXTURES_DIR, 'astronaut.jpg');
let big: string;
let bigMirrored: string;

beforeAll(async () => {
  h = await startHarness({ eagerModel: true });
  dir = await mkdtemp(path.join(os.tmpdir(), 'cli-operations-'));
  ({ bin } = await buildPackage(path.join(dir, 'pkg')));
  big = path.join(dir, 'face-200.jpg');
  bigMirrored = path.join(dir, 'face-190-mirrored.jpg');
  await writeFile(big, astronautFaceOfSize(200));
  await writeFile(bigMirrored, mirrorJpeg(astronautFaceOfSize(190)));
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as JSON, when it is. */
  json: Record<string, unknown>;
}

const env = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', VS_CLIENT_ID: CLIENT_ID, VS_CLIENT_SECRET: CLIENT_SECRET, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url });

/** The command run by the bin, in its own process. */
function vs(...args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: env(), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number) : 0;
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        // not JSON: the test looks at stdout itself
      }
      expect(stdout + stderr).not.toContain(CLIENT_SECRET);
      resolve({ code, stdout, stderr, json });
    });
  });
}

test('detect, collections and compare: each prints the answer as JSON and exits 0; a face the service refuses exits 1 with its code', async () => {
  const faces = await vs('detect', ASTRONAUT);
  expect(faces).toMatchObject({ code: 0, stderr: '' });
  expect(faces.json).toEqual({ faces: [{ direction: 'front', location: expect.objectContaining({ left: expect.any(Number) }) }] });
  const heads = await vs('detect', ASTRONAUT, '--kind', 'heads');
  expect((heads.json.humans as { score: number }[])[0].score).toBeGreaterThan(0.5);

  const created = await vs('collections', 'create', '--id-only');
  expect(created.code).toBe(0);
  const collection = created.stdout.trim();
  expect(collection).toMatch(/^[\w-]+$/);
  expect((await vs('collections', 'list')).json).toEqual({ face_collections: [{ collection_id: collection }] });
  try {
    // The fixture's face is 116 px: the service takes 120..280 (which is why the first run of the docs makes a photo).
    const small = await vs('collections', 'add-face', ASTRONAUT, '--collection', collection);
    expect(small.code).toBe(1);
    expect(small.stderr).toMatch(/vision-streaming collections add-face: .*116x110.*\[face_size_out_of_range\]/);
    const added = await vs('collections', 'add-face', big, '--collection', collection);
    expect(added.code).toBe(0);
    const faceId = added.json.face_id as string;
    expect(added.json).toMatchObject({ collection_id: collection, face_id: expect.any(String), location: expect.any(Object) });
    expect((await vs('collections', 'faces', '--collection', collection)).json).toEqual({ collection_id: collection, faces: [{ face_id: faceId }] });

    const pair = await vs('compare', big, bigMirrored);
    expect(pair.code).toBe(0);
    expect(pair.json).toMatchObject({ score: expect.any(Number), source: { location: expect.any(Object) }, target: { location: expect.any(Object) } });
    expect(pair.json.score as number).toBeGreaterThan(0.8);
    const search = await vs('compare', bigMirrored, '--collection', collection, '--max-results', '1');
    expect(search.json).toMatchObject({ target: { collection_id: collection, faces: [{ face_id: faceId, score: expect.any(Number) }] } });

    expect((await vs('collections', 'remove-face', '--collection', collection, '--face', faceId)).json).toEqual({ removed: true, collection_id: collection, face_id: faceId });
    expect((await vs('collections', 'faces', '--collection', collection)).json.faces).toEqual([]);
  } finally {
    const deleted = await vs('collections', 'delete', '--collection', collection);
    expect(deleted.json).toEqual({ deleted: true, collection_id: collection });
  }
  expect((await h.client.listCollections()).map((c) => c.collectionId)).not.toContain(collection);
}, 120_000);

test('rooms: create, get, list, a ticket (its access token only when asked), delete; an unknown room exits 1 with the 404', async () => {
  const created = await vs('rooms', 'create');
  expect(created.code).toBe(0);
  const room = created.json.id as string;
  expect(created.json).toEqual({ id: room, up_count: 0, down_count: 0, created_at: expect.any(String) });
  expect((await vs('rooms', 'get', '--room', room)).json).toMatchObject({ id: room });
  expect(((await vs('rooms', 'list')).json.rooms as { id: string }[]).map((r) => r.id)).toContain(room);

  const ticket = await vs('rooms', 'ticket', '--room', room, '--direction', 'up');
  expect(ticket.json).toEqual({ id: room, direction: 'up', url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\//) });
  expect(ticket.stdout).not.toMatch(/access_token/);
  const withToken = await vs('rooms', 'ticket', '--room', room, '--access-token');
  expect(withToken.json).toMatchObject({ id: room, direction: 'down', access_token: expect.stringMatching(/\S{16,}/) });

  expect((await vs('rooms', 'delete', '--room', room)).json).toEqual({ deleted: true, id: room });
  const gone = await vs('rooms', 'get', '--room', room);
  expect(gone.code).toBe(1);
  expect(gone.stderr).toMatch(/vision-streaming rooms get: .*404.*does not exist/);
  expect(gone.stdout).toBe('');
}, 60_000);

/** The command run in this process (what it answers before any call: quicker than a process per case). */
async function inProcess(...args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, env(), { stdout: (l) => (stdout += `${l}\n`), stderr: (l) => (stderr += `${l}\n`), interrupted: new Promise(() => undefined) });
  return { code, stdout, stderr, json: {} };
}

test('bad input exits 2 naming the flag or argument, before anything is sent', async () => {
  const before = h.requests();
  const cases: [string[], RegExp][] = [
    [['detect', ASTRONAUT, '--knd', 'faces'], /unknown flag --knd \(did you mean --kind\?\)/],
    [['detect', ASTRONAUT, '--kind', 'bodies'], /--kind takes faces or humans/],
    [['detect'], /IMAGE is missing/],
    [['detect', path.join(dir, 'missing.jpg')], /IMAGE .*missing\.jpg cannot be read: ENOENT/],
    [['detect', path.join(FIXTURES_DIR, 'README.md')], /image is not a JPEG or PNG image/],
    [['compare', ASTRONAUT], /compare takes two images/],
    [['compare', ASTRONAUT, ASTRONAUT, '--collection', 'c'], /--collection: with --collection, compare takes one IMAGE/],
    [['compare', ASTRONAUT, '--collection', 'c', '--max-results', 'ten'], /--max-results must be a number/],
    [['collections', 'faces'], /--collection is required \(or VS_COLLECTION\)/],
    // A core field (faceId) is given with its flag: the message is the core's.
    [['collections', 'remove-face', '--collection', 'c', '--face', '../x'], /--face: faceId must not contain/],
    [['collections', 'drop'], /unknown action "drop"; actions: list, create, delete, faces, add-face, remove-face/],
    [['rooms', 'ticket'], /--room is required \(or VS_ROOM\)/],
    [['rooms', 'ticket', '--room', 'r', '--direction', 'sideways'], /--direction takes up or down/],
    [['rooms', 'list', '--room', 'r'], /unknown flag --room/],
  ];
  for (const [args, message] of cases) {
    const r = await inProcess(...args);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
    expect({ args, stderr: r.stderr }).toEqual({ args, stderr: expect.stringMatching(message) });
  }
  expect(h.requests()).toBe(before);
}, 120_000);
