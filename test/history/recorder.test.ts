import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openHistory, type HistoryStore, type VisitRecord } from '../../shared/history';
import type { Publisher } from '../../shared/publish';
import { FilePeopleStore, peopleKey } from '../../shared/people/file-store';
import { astronautFaceOfSize } from '../support/images';
import { FaceWatcher, PeopleDirectory, type ArrivedEvent, type ClipEvent, type ErrorEvent, type LeftEvent, type StatusEvent, type WatchEvent, type WatchOptions } from '../../shared/watch';
import { readOutput } from '../support/command-output';
import { buildPackage } from '../watch/support/build';
import { collect, publishClip, useStandardScene, waitFor, type WatchHarness } from '../watch/support/room';

// The history as a watch keeps it: the real watcher on the standard clip (A 3 s, the stranger B 3 s,
// nobody 2 s, looped) through a real room on 127.0.0.1, writing into a real SQLite history; the
// command line spawned on the same database; forget through the people directory. One room and one
// publisher serve every test of the file, one watcher at a time.

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let people: FilePeopleStore;
let directory: PeopleDirectory;
let personId: string;
let store: HistoryStore;
let roomId: string;
let publisher: Publisher | undefined;
let watcher: FaceWatcher | undefined;

useStandardScene('history-', 180_000, async (setup) => {
  ({ h, dir, clip } = setup);
  collectionId = setup.scene.collectionId;
  store = await openHistory({ location: path.join(dir, 'visits.db') });
  // A people file as the command line keeps it (sealed with the credentials' key): watch and history --face read it.
  people = new FilePeopleStore(path.join(dir, 'people.json'), { collectionId, key: peopleKey(h.credentials) });
  directory = new PeopleDirectory({ collectionId, store: people, vision: h.vision, history: store });
  personId = (await directory.importLabels({ [setup.scene.faceA]: 'Alice' })).people[0].person_id;
  roomId = (await h.streaming.createRoom()).id;
  await writeFile(path.join(dir, 'alice.jpg'), astronautFaceOfSize(200));
});

afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
});

afterAll(async () => {
  await publisher?.close();
  await store?.close();
});

let bin: string | undefined;

/** Runs `vision-streaming COMMAND ARGS` (built once for the file) with the sandbox's credentials. */
async function cli(command: string, ...args: string[]): Promise<{ code: number; lines: Record<string, unknown>[]; stderr: string }> {
  bin ??= (await buildPackage(await mkdtemp(path.join(dir, 'build-')))).bin;
  const env = { PATH: process.env.PATH, VS_CLIENT_ID: h.credentials.clientId, VS_CLIENT_SECRET: h.credentials.clientSecret, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url };
  const child = spawn(process.execPath, [bin, command, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = readOutput(child);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, lines: out.lines, stderr: out.stderr() };
}

/** `vision-streaming history --history visits.db ARGS`. */
function history(...args: string[]): ReturnType<typeof cli> {
  return cli('history', '--history', path.join(dir, 'visits.db'), ...args);
}

interface Watched {
  events: WatchEvent[];
  clips: ClipEvent[];
}

async function watch(options: Partial<WatchOptions>): Promise<Watched> {
  watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId, collectionId, loopbackOnly: true, cooldownSeconds: 600, leftAfterSeconds: 1.5, ...options });
  const events = collect((n, fn) => watcher!.on(n, fn));
  const clips: ClipEvent[] = [];
  watcher.on('clip', (e) => clips.push(e));
  await watcher.start();
  publisher ??= await publishClip(h, roomId, clip);
  return { events, clips };
}

/** Polls the store until `predicate` holds for the visit (the writes come after the events). */
async function visitWhen(id: string, what: string, predicate: (v: VisitRecord) => boolean, s = store): Promise<VisitRecord> {
  let found: VisitRecord | undefined;
  const deadline = Date.now() + 20_000;
  while (!(found && predicate(found))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for the visit ${what}: ${JSON.stringify(found)?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
    found = await s.get(id);
  }
  return found;
}

async function mode(file: string): Promise<number> {
  return (await stat(file)).mode & 0o777;
}

test('a watched visit is kept as it goes: listed while in progress with its face and snapshot, then closed with left_at, its clip in the history', async () => {
  const { events, clips } = await watch({ people, rememberVisitors: true, history: store, clips: path.join(dir, 'clips'), preRollSeconds: 1, postRollSeconds: 1 });
  const arrivedOf = (): ArrivedEvent | undefined => events.find((e): e is ArrivedEvent => e.event === 'arrived' && e.person_id === personId);
  await waitFor("Alice's arrival", () => arrivedOf() !== undefined, 60_000);
  const arrived = arrivedOf()!;
  const leftOf = (): LeftEvent | undefined => events.find((e): e is LeftEvent => e.event === 'left' && e.visit_id === arrived.visit_id);
  // In progress: the row is there with no left_at yet, and a search by person lists it so (the
  // writes are in order: the arrival's before its left's, whenever the store gets to them).
  let during: VisitRecord | undefined;
  for (const deadline = Date.now() + 30_000; !during; await new Promise((r) => setTimeout(r, 20))) {
    const found = (await store.search({ person_id: personId, since: arrived.arrived_at })).visits.find((v) => v.visit_id === arrived.visit_id);
    if (found?.left_at === null) during = found;
    else if (found || Date.now() > deadline) throw new Error(`the visit was not listed in progress: ${JSON.stringify(found)?.slice(0, 300)}`);
  }
  expect(during!.duration_s).toBeNull();
  expect(during!).toMatchObject({ kind: 'person', person_id: personId, name: 'Alice', label: 'Alice', face_id: arrived.face_id, room_id: roomId, stream_id: arrived.stream_id, arrived_at: arrived.arrived_at });
  expect(during!.events[0]).toMatchObject({ event: 'arrived', time: arrived.time });
  await waitFor("Alice's visit to end", () => leftOf() !== undefined, 30_000);
  const left = leftOf()!;
  const done = await visitWhen(arrived.visit_id, 'closed', (v) => v.left_at !== null);
  expect(done).toMatchObject({ left_at: left.left_at, duration_s: left.duration_s });
  expect(done.events.map((e) => e.event)).toEqual(expect.arrayContaining(['arrived', 'match', 'left']));
  expect(done.events.find((e) => e.event === 'left')).toMatchObject({ reason: 'not_seen' });
  expect(done.best_score).toBeGreaterThanOrEqual(arrived.score ?? 0);
  // The face crop and the snapshot are files of the history's media, 0600, whole.
  for (const ref of [done.face!, done.snapshot!]) {
    const file = store.mediaPath(ref);
    expect(await mode(file)).toBe(0o600);
    expect((await readFile(file)).length).toBe(ref.bytes);
    expect(ref.mime).toBe('image/jpeg');
  }
  // The visit's clip: the same bytes as the clip file, kept in the history.
  // A visit's clip (on a loaded machine a clip can fail, as its own event says: the next visit's then).
  const madeOf = (): ClipEvent | undefined => clips.find((c) => c.visit_id !== undefined && c.error === undefined);
  await waitFor('a clip of a visit', () => madeOf() !== undefined, 60_000);
  const made = madeOf()!;
  const withClip = await visitWhen(made.visit_id!, 'with its clip', (v) => v.clip !== null);
  const kept = store.mediaPath(withClip.clip!);
  expect(kept).not.toBe(made.path);
  expect(await mode(kept)).toBe(0o600);
  expect(await readFile(kept)).toEqual(await readFile(made.path!));
  expect(withClip.clip).toMatchObject({ bytes: made.bytes, mime: 'video/webm' });
  await watcher!.stop();
  const statuses = events.filter((e): e is StatusEvent => e.event === 'status');
  const last = statuses[statuses.length - 1];
  expect(last.state).toBe('stopped');
  expect(last.history).toMatchObject({ dropped: 0, queued: 0 });
  expect(last.history!.written).toBeGreaterThanOrEqual(5);
  // The sweep at start found nothing to remove, and said so in status.
  expect(last.history!.last_sweep).toMatchObject({ removed_visits: 0, removed_media: 0 });
  expect(events.filter((e) => e.event === 'error')).toEqual([]);
}, 150_000);

test('the history command: search by person and --since prints JSON lines with the media as paths; a bad --since exits 2 naming it; --face finds the person or the visitor', async () => {
  const run = history;
  const known = await store.search({ person_id: personId });
  expect(known.visits.length).toBeGreaterThan(0);
  const byName = await run('--person', 'Alice', '--since', '1h');
  expect(byName.stderr).toBe('');
  expect(byName.code).toBe(0);
  expect(byName.lines.map((l) => [l.visit_id, l.arrived_at])).toEqual(known.visits.map((v) => [v.visit_id, v.arrived_at]));
  for (const line of byName.lines) {
    expect(line).toMatchObject({ kind: 'person', person_id: personId, name: 'Alice' });
    expect(line).not.toHaveProperty('face');
    await expect(stat(line.face_path as string)).resolves.toBeTruthy();
    await expect(stat(line.snapshot_path as string)).resolves.toBeTruthy();
    expect(line).toHaveProperty('clip_path');
  }
  // --since after every visit: none; a page of one: one line and the cursor of the next.
  expect((await run('--person', personId, '--since', new Date(Date.now() + 60_000).toISOString())).lines).toEqual([]);
  const paged = await run('--limit', '1');
  expect(paged.lines).toHaveLength(2);
  expect(paged.lines[1]).toEqual({ next: expect.any(String) });
  const bad = await run('--person', 'Alice', '--since', 'last tuesday');
  expect(bad.code).toBe(2);
  expect(bad.lines).toEqual([]);
  expect(bad.stderr).toContain('--since');
  const backwards = await run('--since', '2026-11-28', '--until', '2026-11-27');
  expect(backwards.code).toBe(2);
  expect(backwards.stderr).toContain('--until');
  // By face: a photo of Alice is Alice (through the people file), with her visits.
  const alice = await run('--face', path.join(dir, 'alice.jpg'), '--collection', collectionId, '--people', path.join(dir, 'people.json'));
  expect(alice.code).toBe(0);
  expect(alice.stderr).toContain(`the face is Alice (${personId}`);
  expect(alice.lines.map((l) => l.visit_id)).toEqual(known.visits.map((v) => v.visit_id));
  // An event's face crop, as the history kept it, gives the remembered stranger and their visits.
  const strangers = (await store.search({ kind: 'visitor' })).visits;
  expect(strangers.length).toBeGreaterThan(0);
  const visitorId = strangers[0].visitor_id!;
  const crop = store.mediaPath(strangers.find((v) => v.face)!.face!);
  const stranger = await run('--face', crop, '--collection', collectionId);
  expect(stranger.code).toBe(0);
  expect(stranger.stderr).toContain(`the visitor ${visitorId}`);
  expect(stranger.lines.length).toBeGreaterThan(0);
  for (const line of stranger.lines) expect(line).toMatchObject({ kind: 'visitor', visitor_id: visitorId });
}, 120_000);

test("people forget --history erases the person's visits and their media, and its receipt counts them; others' visits stay", async () => {
  const before = await store.search({ person_id: personId, limit: 1000 });
  expect(before.visits.length).toBeGreaterThan(0);
  const files = before.visits.flatMap((v) => [v.face, v.snapshot, v.clip].filter((r) => r !== null)).map((r) => store.mediaPath(r));
  const others = (await store.search({ limit: 1000 })).visits.filter((v) => v.person_id !== personId);
  expect(others.length).toBeGreaterThan(0);
  // As a script forgets: people forget --history, its receipt on stdout.
  const forgot = await cli('people', 'forget', '--collection', collectionId, '--people', path.join(dir, 'people.json'), '--history', path.join(dir, 'visits.db'), '--name', 'Alice');
  expect(forgot.stderr).toBe('');
  expect(forgot.code).toBe(0);
  expect(forgot.lines[0]).toMatchObject({ person_id: personId, removed_visits: before.visits.length, removed_media: files.length });
  expect((await store.search({ person_id: personId })).visits).toEqual([]);
  for (const file of files) await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  // The stranger's visits and their pictures are still there.
  const still = (await store.search({ limit: 1000 })).visits.map((v) => v.visit_id);
  for (const v of others) {
    expect(still).toContain(v.visit_id);
    if (v.face) await expect(stat(store.mediaPath(v.face))).resolves.toBeTruthy();
  }
  // Forgetting again (the directory with the history, in the process) erases nothing more and says so.
  expect(await directory.forget({ person: { person_id: personId } })).toMatchObject({ already_forgotten: true, removed_visits: 0, removed_media: 0 });
  // Her face has left the collection: a photo of her is never seen.
  const gone = await history('--face', path.join(dir, 'alice.jpg'), '--collection', collectionId);
  expect(gone.code).toBe(0);
  expect(gone.lines).toEqual([{ never_seen: true, score: expect.any(Number) }]);
  // One visit deleted: the row and its files go, and the receipt says how many.
  const one = others.find((v) => v.face) ?? others[0];
  const deleted = await cli('history', 'delete', '--history', path.join(dir, 'visits.db'), '--visit', one.visit_id);
  expect(deleted.code).toBe(0);
  expect(deleted.lines).toEqual([{ visit_id: one.visit_id, removed_visits: 1, removed_media: [one.face, one.snapshot, one.clip].filter(Boolean).length }]);
  expect(await store.get(one.visit_id)).toBeUndefined();
  if (one.face) await expect(stat(store.mediaPath(one.face))).rejects.toMatchObject({ code: 'ENOENT' });
}, 60_000);

test('a history that fails mid-run: its writes are retried, then counted as dropped, with an error event; watching goes on', async () => {
  // The watcher opens this history itself (and closes it at its stop); the test reads it through a store of its own.
  const location = path.join(dir, 'failing.db');
  const other = await openHistory({ location });
  try {
    const { events } = await watch({ history: { location, maxAgeDays: 7 } });
    const arrivals = (): ArrivedEvent[] => events.filter((e): e is ArrivedEvent => e.event === 'arrived');
    await waitFor('an arrival', () => arrivals().length > 0, 60_000);
    await visitWhen(arrivals()[0].visit_id, 'written', (v) => v.face !== null, other);
    // The media folder goes (as an unmounted or failed disk would): every picture write fails.
    const media = path.dirname(path.dirname(other.mediaPath((await other.get(arrivals()[0].visit_id))!.face!)));
    // Moved away in one step: a write in flight must not refill it while it is removed.
    await rename(media, `${media}.gone`);
    await rm(`${media}.gone`, { recursive: true, force: true, maxRetries: 5 });
    const seen = arrivals().length;
    await waitFor('a history error', () => events.some((e) => e.event === 'error'), 60_000);
    const error = events.find((e): e is ErrorEvent => e.event === 'error')!;
    expect(error).toMatchObject({ source: 'history', error: { code: 'history_write_failed' } });
    expect(error.error.message).toContain('ENOENT');
    expect(watcher!.state).toBe('watching');
    await waitFor('the next arrival', () => arrivals().length > seen + 1, 60_000);
    await watcher!.stop();
    const statuses = events.filter((e): e is StatusEvent => e.event === 'status');
    const last = statuses[statuses.length - 1];
    expect(last).toMatchObject({ state: 'stopped', history: { last_error: 'ENOENT', queued: 0 } });
    expect(last.history!.dropped).toBeGreaterThanOrEqual(2);
    // The rows still went in: the visits after the failure are kept, without their pictures.
    const later = arrivals()[arrivals().length - 1];
    expect(await other.get(later.visit_id)).toMatchObject({ visit_id: later.visit_id, face: null });
  } finally {
    await watcher?.stop();
    await other.close();
  }
}, 150_000);
