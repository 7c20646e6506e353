import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../cli/main';
import type { Publisher } from '../../shared/publish';
import { ASTRONAUT_FACE, astronautJpeg } from '../support/images';
import { encodeClip, personFrom } from '../support/clip';
import { publishClip, startWatchHarness, waitFor, type WatchHarness } from './support/room';

// Failures of `vision-streaming watch` are loud where someone can act on them: a --snapshots folder
// that cannot be written stops it at start (exit 2), a file that cannot be written mid-run never
// costs the event its line, and a lost room ends the command with a non-zero exit. What it writes
// is for this user alone (files 0600, folders 0700).

let h: WatchHarness;
let dir: string;
let clip: string;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'cli-failures-'));
  // One stranger, 2 s on and 1 s off, looped: a new unknown event every loop.
  const a = personFrom(astronautJpeg(), ASTRONAUT_FACE);
  clip = await encodeClip(dir, 'stranger', [
    { placements: [{ person: a, faceSide: 150, cx: 320, cy: 220 }], seconds: 2 },
    { placements: [], seconds: 1 },
  ]);
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let publisher: Publisher | undefined;
afterEach(async () => {
  await publisher?.close();
  publisher = undefined;
});

interface Run {
  lines: Record<string, unknown>[];
  stderr: string[];
  code: Promise<number>;
  stop: () => void;
}

function run(args: string[]): Run {
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  let stop!: () => void;
  const interrupted = new Promise<void>((resolve) => (stop = resolve));
  const env = { VS_CLIENT_SECRET: 'sandbox-secret', VS_CLIENT_ID: 'sandbox-client', VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url };
  const code = main(['watch', ...args], env, { stdout: (l) => lines.push(JSON.parse(l) as Record<string, unknown>), stderr: (l) => stderr.push(l), interrupted });
  return { lines, stderr, code, stop };
}

test('--snapshots where no file can be written exits 2 naming it, before anything is contacted', async () => {
  const file = path.join(dir, 'a-file');
  await writeFile(file, 'x');
  const before = h.sandbox.stats().requests;
  for (const where of [path.join(file, 'snaps'), file]) {
    const r = run(['--room', 'r', '--collection', 'c', '--snapshots', where]);
    expect(await r.code).toBe(2);
    expect(r.stderr.join('\n')).toMatch(/--snapshots .*a-file/);
  }
  expect(h.sandbox.stats().requests).toBe(before);
});

test('files 0600 in a folder made 0700; a file that cannot be written leaves the line with null and the reason; a lost room exits 3', async () => {
  const collectionId = (await h.vision.createCollection()).collectionId;
  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  const snapshots = path.join(dir, 'made', 'snaps');
  const args = ['--room', room.id, '--collection', collectionId, '--snapshots', snapshots, '--events', 'unknown,status,error', '--loopback'];
  const unknown = (r: Run) => r.lines.filter((l) => l.event === 'unknown');

  const ok = run(args);
  await waitFor('an unknown face written to a file', () => unknown(ok).length >= 1, 60_000);
  ok.stop();
  expect(await ok.code).toBe(0);
  expect((await stat(snapshots)).mode & 0o777).toBe(0o700);
  const first = unknown(ok)[0];
  for (const key of ['snapshot', 'face']) expect((await stat(first[key] as string)).mode & 0o777).toBe(0o600);
  expect(first).not.toHaveProperty('file_errors');

  // The folder goes away once the watch runs (a full disk, an unmounted share would do the same): lines keep coming.
  const r = run(args);
  await waitFor('watching', () => r.lines.some((l) => l.event === 'status' && l.state === 'watching'), 60_000);
  await rm(snapshots, { recursive: true });
  await writeFile(snapshots, 'not a folder any more');
  await waitFor('an unknown face after the folder went', () => unknown(r).length >= 1, 60_000);
  const later = unknown(r)[0];
  expect(later).toMatchObject({ snapshot: null, face: null, file_errors: { snapshot: 'ENOTDIR', face: 'ENOTDIR' } });
  expect(later).toHaveProperty('location');
  expect(r.stderr.join('\n')).toMatch(/could not write a file of a unknown event \(ENOTDIR/);

  // The room is deleted: the watcher loses it for good, and the command says so with its exit code.
  await h.streaming.deleteRoom(room.id);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([r.code, new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), 60_000)))]);
  clearTimeout(timer);
  if (code === -1) {
    r.stop();
    await r.code;
  }
  expect(code).toBe(3);
  expect(r.lines.at(-1)).toMatchObject({ event: 'status', state: 'stopped', reason: 'session_lost' });
  expect(r.stderr.join('\n')).toMatch(/the watch ended: .*\[session_lost\]/);
}, 180_000);
