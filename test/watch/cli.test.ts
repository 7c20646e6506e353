import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FaultConfig } from '../../sandbox';
import type { Publisher } from '../../shared/publish';
import { FaceWatcher } from '../../shared/watch';
import { stillRunning, watchTree } from '../publish/support/process-tree';
import { peopleMain } from '../../cli/people';
import { astronautFaceOfSize } from '../support/images';
import { readOutput } from '../support/command-output';
import { buildPackage } from './support/build';
import { encodeClip } from '../support/clip';
import { loopMs, publishClip, standardScene, startWatchHarness, waitFor, type WatchHarness } from './support/room';

// `vision-streaming watch` run as a user runs it: the bin under the package's Node, the secret in
// VS_CLIENT_SECRET, other settings from flags and VS_ variables, events as JSON lines on stdout.

let h: WatchHarness;
let dir: string;
let bin: string;
let collectionId: string;
let faceA: string;
let clip: string;
/** The standard clip's loop (A, B, nobody), in ms. */
let loop: number;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'watch-cli-'));
  ({ bin } = await buildPackage(path.join(dir, 'pkg')));
  const scene = await standardScene(h);
  ({ collectionId, faceA } = scene);
  loop = loopMs(scene.segments);
  clip = await encodeClip(dir, 'standard', scene.segments);
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let publisher: Publisher | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
  }
  child = undefined;
  await publisher?.close();
  publisher = undefined;
});

interface Run {
  lines: Record<string, unknown>[];
  stderr: () => string;
  stdout: () => string;
  exit: Promise<number | null>;
}

function run(args: string[], env: Record<string, string>): Run {
  child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = readOutput(child);
  const exit = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  return { ...output, exit };
}

const SECRET = 'sandbox-secret';

test('watch prints a match and an unknown as JSON lines, writes snapshots, stops at --duration with exit 0', async () => {
  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  const labels = path.join(dir, 'labels.json');
  await writeFile(labels, JSON.stringify({ [faceA]: 'Eileen', [publisher.clientId!]: 'door' }));
  const snapshots = path.join(dir, 'snaps');
  const r = run(
    ['watch', '--auth-url', h.sandbox.url, '--client-id', 'sandbox-client', '--room', room.id, '--collection', collectionId, '--labels', labels, '--snapshots', snapshots, '--duration', '14', '--loopback'],
    // Every flag has a VS_ variable too: these two come from the environment only.
    { VS_CLIENT_SECRET: SECRET, VS_VISION_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url },
  );
  expect(await r.exit).toBe(0);
  const match = r.lines.find((l) => l.event === 'match');
  const unknown = r.lines.find((l) => l.event === 'unknown');
  expect(match).toMatchObject({ face_id: faceA, label: 'Eileen', room: room.id, stream_id: publisher.clientId, stream_label: 'door' });
  for (const key of ['event', 'face_id', 'score', 'label', 'location', 'room', 'time', 'snapshot']) expect(match).toHaveProperty(key);
  for (const key of ['event', 'location', 'room', 'time', 'snapshot', 'stream_id']) expect(unknown).toHaveProperty(key);
  const jpeg = await readFile(match!.snapshot as string);
  expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(path.dirname(match!.snapshot as string)).toBe(snapshots);
  // The face crop is written beside the snapshot.
  expect(path.dirname(match!.face as string)).toBe(snapshots);
  expect((await readFile(match!.face as string)).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  for (const l of r.lines.filter((x) => x.event === 'match' || x.event === 'unknown')) expect(l.stream_id).toBe(publisher.clientId);
  expect(r.lines.filter((l) => l.event === 'match')).toHaveLength(1);
  // The visit's arrival is its own line, just before the match, with its pictures written too.
  const arrived = r.lines.find((l) => l.event === 'arrived' && l.face_id === faceA)!;
  expect(arrived).toMatchObject({ kind: 'person', label: 'Eileen', visit_id: expect.any(String), quality: expect.objectContaining({ face_px: expect.any(Number) }) });
  expect(r.lines.indexOf(arrived)).toBeLessThan(r.lines.indexOf(match!));
  expect(path.dirname(arrived.snapshot as string)).toBe(snapshots);
  expect(r.lines.at(-1)).toMatchObject({ event: 'status', state: 'stopped' });
  expect(r.stderr()).toMatch(/watching room .*speed-ups on/);
  expect(r.stdout() + r.stderr()).not.toContain(SECRET);
}, 120_000);

test('watch --people FILE: two photos of one person, named by `people import-labels`, are one someone: one visit at a time, one match per cooldown, person_id and name on every line', async () => {
  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  // A second photo of the same person, in the scene's collection for this test only (a client has one collection).
  const faces = [faceA, (await h.vision.addFace(collectionId, astronautFaceOfSize(190))).faceId];
  try {
    await watchAsPerson(room.id, faces);
  } finally {
    await h.vision.removeFace(collectionId, faces[1]);
  }
}, 120_000);

async function watchAsPerson(roomId: string, faces: string[]): Promise<void> {
  const labels = path.join(dir, 'labels-person.json');
  await writeFile(labels, JSON.stringify({ [faces[0]]: 'Eileen', [faces[1]]: 'Eileen' }));
  const peopleFile = path.join(dir, 'people-cli.json');
  const env = { VS_CLIENT_SECRET: SECRET, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url, VS_CLIENT_ID: 'sandbox-client', VS_COLLECTION: collectionId, VS_PEOPLE: peopleFile };
  let imported = '';
  const io = { stdout: (l: string) => (imported += l), stderr: (l: string) => (imported += l), interrupted: new Promise<void>(() => undefined) };
  expect(await peopleMain(['import-labels', '--labels', labels], env, io)).toBe(0);
  const person = (JSON.parse(imported) as { people: { person_id: string; name: string; added_faces: string[] }[] }).people[0];
  expect(person).toMatchObject({ name: 'Eileen', added_faces: faces });

  const r = run(['watch', '--room', roomId, '--events', 'match,arrived,left,status', '--cooldown', '60', '--duration', '12', '--loopback'], env);
  expect(await r.exit).toBe(0);
  const hers = r.lines.filter((l) => (l.event === 'match' || l.event === 'arrived' || l.event === 'left') && l.kind !== 'stranger' && l.kind !== 'visitor');
  expect(hers.length).toBeGreaterThan(0);
  for (const l of hers) expect(l).toMatchObject({ person_id: person.person_id, name: 'Eileen', label: 'Eileen' });
  expect(r.lines.filter((l) => l.event === 'match')).toHaveLength(1);
  expect(faces).toContain(r.lines.find((l) => l.event === 'match')!.face_id);
  // One visit at a time: each arrival of hers is closed by its left before the next one.
  let open: unknown;
  for (const l of hers) {
    if (l.event === 'arrived') {
      expect(open).toBeUndefined();
      open = l.visit_id;
    } else if (l.event === 'left') {
      expect(l.visit_id).toBe(open);
      open = undefined;
    }
  }
}

test('--ignore NAME: the muted person gets no match, arrived or left line, and the closing line counts them', async () => {
  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  const labels = path.join(dir, 'labels-muted.json');
  await writeFile(labels, JSON.stringify({ [faceA]: 'Eileen' }));
  const r = run(['watch', '--room', room.id, '--collection', collectionId, '--labels', labels, '--ignore', 'Eileen', '--loopback'], {
    VS_CLIENT_SECRET: SECRET,
    VS_AUTH_URL: h.sandbox.url,
    VS_VISION_URL: h.sandbox.url,
    VS_SFU_URL: h.sandbox.url,
    VS_CLIENT_ID: 'sandbox-client',
  });
  // Stopped once the stranger has come and a whole loop of the clip (A, then B) has been watched, not
  // after a fixed time: on a loaded machine the join can take a good part of one.
  await waitFor('watching', () => r.lines.some((l) => l.event === 'status' && l.state === 'watching'), 60_000);
  const watching = Date.now();
  await waitFor('a stranger and a whole loop', () => r.lines.some((l) => l.event === 'arrived' && l.kind === 'stranger') && Date.now() - watching > loop + 1000, 60_000);
  child!.kill('SIGINT');
  expect(await r.exit).toBe(0);
  expect(r.lines.some((l) => l.face_id === faceA || l.label === 'Eileen')).toBe(false);
  // The stranger still comes.
  expect(r.lines.some((l) => l.event === 'arrived' && l.kind === 'stranger')).toBe(true);
  expect(r.stderr()).toMatch(/[1-9]\d* muted/);
}, 120_000);

test('Ctrl-C stops cleanly with exit 0; --base64 puts the snapshot inline', async () => {
  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  const r = run(['watch', '--room', room.id, '--base64', '--events', 'match,status'], {
    VS_CLIENT_SECRET: SECRET,
    VS_AUTH_URL: h.sandbox.url,
    VS_VISION_URL: h.sandbox.url,
    VS_SFU_URL: h.sandbox.url,
    VS_CLIENT_ID: 'sandbox-client',
    VS_COLLECTION: collectionId,
    VS_LOOPBACK: '1',
    // werift as published: a process setting, and the command is a process of its own.
    VS_WERIFT_SPEEDUPS: '0',
  });
  await waitFor('a match line', () => r.lines.some((l) => l.event === 'match'), 90_000);
  expect(r.stderr()).toMatch(/speed-ups off: turned off/);
  child!.kill('SIGINT');
  expect(await r.exit).toBe(0);
  const match = r.lines.find((l) => l.event === 'match')!;
  expect(Buffer.from(match.snapshot as string, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(Buffer.from(match.face as string, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(r.lines.every((l) => l.event === 'match' || l.event === 'status')).toBe(true);
  expect(r.lines.at(-1)).toMatchObject({ event: 'status', state: 'stopped' });
}, 120_000);

test('watch --tracks prints a tracks line per analysed sample (whatever --events says), with the faces in view and a still inline with --base64', async () => {
  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  const r = run(['watch', '--room', room.id, '--collection', collectionId, '--tracks', '--still-every', '1', '--base64', '--events', 'status', '--loopback'], {
    VS_CLIENT_SECRET: SECRET,
    VS_AUTH_URL: h.sandbox.url,
    VS_VISION_URL: h.sandbox.url,
    VS_SFU_URL: h.sandbox.url,
    VS_CLIENT_ID: 'sandbox-client',
  });
  const tracks = (): Record<string, unknown>[] => r.lines.filter((l) => l.event === 'tracks');
  await waitFor('a tracks line naming the known face, and one with a still', () => tracks().some((l) => JSON.stringify(l.tracks).includes(faceA)) && tracks().some((l) => typeof l.still === 'string'), 90_000);
  child!.kill('SIGINT');
  expect(await r.exit).toBe(0);
  const named = tracks().find((l) => JSON.stringify(l.tracks).includes(faceA))!;
  expect(named).toMatchObject({ room: room.id, stream_id: expect.any(String), frame_time: expect.any(String), width: expect.any(Number), height: expect.any(Number) });
  expect((named.tracks as Record<string, unknown>[]).find((t) => t.face_id === faceA)).toMatchObject({ verdict: 'person', track: expect.any(Number), location: expect.any(Object) });
  const still = tracks().find((l) => typeof l.still === 'string')!;
  expect(Buffer.from(still.still as string, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  // --events status: no face events, only the tracks and the status lines.
  expect(r.lines.every((l) => l.event === 'tracks' || l.event === 'status')).toBe(true);
}, 120_000);

test('--help documents every flag and the secret variable; bad or missing settings exit 2 with a message on stderr', async () => {
  const help = run(['watch', '--help'], {});
  expect(await help.exit).toBe(0);
  const text = help.stdout();
  for (const flag of ['--auth-url', '--vision-url', '--sfu-url', '--client-id', '--room', '--collection', '--threshold', '--cooldown', '--fps', '--labels', '--snapshots', '--base64', '--duration', '--werift-speedups']) {
    expect(text).toContain(flag);
  }
  expect(text).toContain('VS_CLIENT_SECRET');
  expect(text).toContain('VS_ROOM');
  const noSecret = run(['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x'], {});
  expect(await noSecret.exit).toBe(2);
  expect(noSecret.stderr()).toMatch(/VS_CLIENT_SECRET/);
  const badFps = run(['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x', '--fps', 'fast'], { VS_CLIENT_SECRET: 's' });
  expect(await badFps.exit).toBe(2);
  expect(badFps.stderr()).toMatch(/--fps must be a number/);
  const badSwitch = run(['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x', '--werift-speedups', 'maybe'], { VS_CLIENT_SECRET: 's' });
  expect(await badSwitch.exit).toBe(2);
  expect(badSwitch.stderr()).toMatch(/--werift-speedups takes on or off/);
  const badEvents = run(['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x', '--events', 'match,nope'], { VS_CLIENT_SECRET: 's' });
  expect(await badEvents.exit).toBe(2);
  expect(badEvents.stderr()).toMatch(/--events takes/);
  const unknownFlag = run(['watch', '--client-secret', 'oops'], { VS_CLIENT_SECRET: 's' });
  expect(await unknownFlag.exit).toBe(2);
  expect(unknownFlag.stderr()).not.toContain('oops');
  const badRoom = run(['watch', '--room', 'no-such-room', '--collection', collectionId, '--client-id', 'sandbox-client'], {
    VS_CLIENT_SECRET: SECRET,
    VS_AUTH_URL: h.sandbox.url,
    VS_VISION_URL: h.sandbox.url,
    VS_SFU_URL: h.sandbox.url,
  });
  expect(await badRoom.exit).toBe(1);
  expect(badRoom.stderr()).toMatch(/could not start: .*no-such-room/);
}, 60_000);

test('--visitors: a file that is not a visitor list, or an option out of range, exits 2 naming it; the visitors enrolled are written to the file', async () => {
  const notOurs = path.join(dir, 'labels-not-visitors.json');
  await writeFile(notOurs, JSON.stringify({ hello: 'world' }));
  const base = ['watch', '--room', 'r', '--collection', 'c', '--client-id', 'x', '--remember-visitors'];
  const bad = run([...base, '--visitors', notOurs], { VS_CLIENT_SECRET: 's' });
  expect(await bad.exit).toBe(2);
  expect(bad.stderr()).toMatch(/--visitors .* is not a visitor list/);
  const badRange = run([...base, '--left-after', '0'], { VS_CLIENT_SECRET: 's' });
  expect(await badRange.exit).toBe(2);
  expect(badRange.stderr()).toMatch(/leftAfterSeconds must be a number in 1\.\.86400/);
  const badDays = run([...base, '--visitor-retention-days', '99999'], { VS_CLIENT_SECRET: 's' });
  expect(await badDays.exit).toBe(2);
  expect(badDays.stderr()).toMatch(/visitorRetentionDays must be a number in 1\.\.3650/);

  const room = await h.streaming.createRoom();
  publisher = await publishClip(h, room.id, clip);
  const file = path.join(dir, 'visitors.json');
  const r = run(['watch', '--room', room.id, '--collection', collectionId, '--client-id', 'sandbox-client', '--remember-visitors', '--visitors', file, '--events', 'unknown,left', '--left-after', '1'], {
    VS_CLIENT_SECRET: SECRET,
    VS_AUTH_URL: h.sandbox.url,
    VS_VISION_URL: h.sandbox.url,
    VS_SFU_URL: h.sandbox.url,
  });
  // Stopped once the stranger has come and gone (the file is written as a visitor is enrolled), not
  // after a fixed --duration: the first test stops at one.
  await waitFor('an unknown and a left line', () => r.lines.some((l) => l.event === 'unknown') && r.lines.some((l) => l.event === 'left'), 90_000);
  child!.kill('SIGINT');
  expect(await r.exit).toBe(0);
  const unknown = r.lines.find((l) => l.event === 'unknown')!;
  expect(unknown).toMatchObject({ first_visit: true, visits: 1, visitor_id: expect.any(String) });
  expect(r.lines.some((l) => l.event === 'left')).toBe(true);
  expect(r.lines.every((l) => l.event === 'unknown' || l.event === 'left')).toBe(true);
  const kept = JSON.parse(await readFile(file, 'utf8')) as { collectionId: string; visitors: { visitorId: string }[] };
  expect(kept.collectionId).toBe(collectionId);
  expect(kept.visitors.map((v) => v.visitorId)).toContain(unknown.visitor_id);
  expect(JSON.stringify(kept)).not.toContain(SECRET);
  await h.vision.removeFace(collectionId, unknown.visitor_id as string);
}, 120_000);

describe('stopping while the room cannot be joined', () => {
  afterEach(() => h.sandbox.clearFaults());
  /** The bound the issue states for a stop, in ms. */
  const STOP_BOUND_MS = 5000;
  const env = (): Record<string, string> => ({ VS_CLIENT_SECRET: SECRET, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url, VS_CLIENT_ID: 'sandbox-client', VS_LOOPBACK: '1' });
  const watching = (roomId: string, extra: string[] = []): { r: Run; tree: ReturnType<typeof watchTree> } => {
    const r = run(['watch', '--room', roomId, '--collection', collectionId, ...extra], env());
    const tree = watchTree(child!.pid!);
    void r.exit.then(() => tree.stop());
    return { r, tree };
  };
  const requestsTo = (endpoint: string): number => h.sandbox.stats().byEndpoint[endpoint] ?? 0;
  const expectNothingLeft = (r: Run, tree: ReturnType<typeof watchTree>): void => {
    expect(tree.seen().filter(stillRunning).map((p) => p.command)).toEqual([]);
    expect(r.stdout() + r.stderr()).not.toContain(SECRET);
  };

  test('SIGTERM while the tickets are refused, or the token endpoint fails (500): exit 0 within 5 s, nothing left', async () => {
    const room = await h.streaming.createRoom();
    const cases: [string, FaultConfig][] = [
      ['tickets', { tickets: { tooManyRequests: 1, latencyMs: 1000 } }],
      ['token', { token: { serverError: 1, latencyMs: 300 } }],
    ];
    for (const [endpoint, faults] of cases) {
      h.sandbox.setFaults(faults);
      const asked = requestsTo(endpoint);
      const { r, tree } = watching(room.id);
      await waitFor(`two ${endpoint} requests`, () => requestsTo(endpoint) >= asked + 2, 30_000);
      const sent = Date.now();
      child!.kill('SIGTERM');
      expect(await r.exit).toBe(0);
      expect(Date.now() - sent).toBeLessThan(STOP_BOUND_MS);
      expect(r.lines.some((l) => l.state === 'watching')).toBe(false);
      expectNothingLeft(r, tree);
      h.sandbox.clearFaults();
    }
  }, 120_000);

  test('the watcher the command runs: stop() while its join waits for refused tickets ends start() with "stopped" within 5 s', async () => {
    const room = await h.streaming.createRoom();
    h.sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
    const asked = requestsTo('tickets');
    const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId, loopbackOnly: true });
    const statuses: string[] = [];
    watcher.on('status', (e) => statuses.push(`${e.state}${e.reason ? `:${e.reason}` : ''}`));
    const started = watcher.start();
    started.catch(() => undefined);
    await waitFor('two ticket requests', () => requestsTo('tickets') >= asked + 2, 30_000);
    const stopAt = Date.now();
    await watcher.stop();
    await expect(started).rejects.toMatchObject({ code: 'stopped' });
    expect(Date.now() - stopAt).toBeLessThan(STOP_BOUND_MS);
    expect(statuses.at(-1)).toBe('stopped:requested');
  }, 60_000);

  test('--duration 2 while the tickets are refused: exit 0 within 2 + 5 s', async () => {
    const room = await h.streaming.createRoom();
    h.sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
    const { r, tree } = watching(room.id, ['--duration', '2']);
    await waitFor('the first line', () => r.lines.length > 0, 30_000);
    // Counted from the first line (the joining status, just after the duration starts): Node's own
    // start-up on a busy machine is not the command's to bound.
    const running = Date.now();
    expect(await r.exit).toBe(0);
    expect(Date.now() - running).toBeLessThan(2000 + STOP_BOUND_MS);
    expect(r.lines.at(-1)).toMatchObject({ event: 'status', state: 'stopped' });
    expectNothingLeft(r, tree);
  }, 60_000);

  test('a room that refuses every ticket: exit 1 after the stated attempts, with the reason', async () => {
    const room = await h.streaming.createRoom();
    h.sandbox.setFaults({ tickets: { tooManyRequests: 1 } });
    // Two attempts (the default's five only wait longer): the second is the one after a rejoin's backoff.
    const { r, tree } = watching(room.id, ['--join-attempts', '2']);
    expect(await r.exit).toBe(1);
    expect(r.stderr()).toMatch(/could not start: .*could not join the room in 2 attempts.*429/);
    expect(r.lines.filter((l) => l.state === 'rejoining')).toHaveLength(1);
    expectNothingLeft(r, tree);
    const help = run(['watch', '--help'], {});
    expect(await help.exit).toBe(0);
    expect(help.stdout()).toMatch(/5 attempts/);
    expect(help.stdout()).toMatch(/--join-attempts N .*default 5/);
  }, 120_000);
});
