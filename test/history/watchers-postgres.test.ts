import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openHistory, type HistoryStore, type VisitRecord } from '../../shared/history';
import type { Publisher } from '../../shared/publish';
import { readOutput, type CommandOutput } from '../support/command-output';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres';
import { buildPackage } from '../watch/support/build';
import { publishClip, useStandardScene, waitFor, type WatchHarness } from '../watch/support/room';

// Two `vision-streaming watch --history postgres://…` processes, each on a room of its own with the
// standard clip published into it, writing into one real PostgreSQL (Debian's server in a temporary
// folder, test/support/postgres.ts) and one shared media folder: every visit either printed is in the
// database with its arrival, its leaving and its pictures, and neither dropped a write.

const describePostgres = postgresSkipReason ? describe.skip : describe;
if (postgresSkipReason) console.log(`two watchers into one PostgreSQL skipped: ${postgresSkipReason}`);

let h: WatchHarness;
let dir: string;
let clip: string;
let collectionId: string;
let server: TestPostgres | undefined;
let bin: string;
const publishers: Publisher[] = [];
const children: ChildProcess[] = [];

useStandardScene('history-watchers-', 180_000, async (setup) => {
  if (postgresSkipReason) return;
  ({ h, dir, clip } = setup);
  collectionId = setup.scene.collectionId;
  [server, { bin }] = await Promise.all([startPostgres(), buildPackage(path.join(dir, 'pkg'))]);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(publishers.map((p) => p.close()));
  await server?.close();
});

/** `vision-streaming watch` on one room into the shared history, until stop() (SIGTERM, as a user's Ctrl-C). */
function watch(roomId: string, media: string): CommandOutput & { exit: Promise<number | null>; stop: () => void } {
  const args = ['watch', '--room', roomId, '--collection', collectionId, '--history-media', media, '--left-after', '1', '--loopback'];
  // The URL (with its password) through the environment, where other users cannot read it; the flag's own variable.
  const env = { PATH: process.env.PATH ?? '', VS_HISTORY: server!.url, VS_CLIENT_ID: h.credentials.clientId, VS_CLIENT_SECRET: h.credentials.clientSecret, VS_AUTH_URL: h.sandbox.url, VS_VISION_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url };
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output = readOutput(child);
  return { ...output, exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))), stop: () => void child.kill('SIGTERM') };
}

describePostgres('two watcher processes into one PostgreSQL', () => {
  it('lose nothing: every visit either printed is in the database with its events and its face and snapshot', async () => {
    const rooms = [(await h.streaming.createRoom()).id, (await h.streaming.createRoom()).id];
    for (const room of rooms) publishers.push(await publishClip(h, room, clip));
    const media = path.join(dir, 'media');
    const runs = rooms.map((room) => watch(room, media));
    // Until each has told two visits and one's end (both people of the clip, the first gone), then stopped:
    // the visits still going on end with the stop, and the history's queue drains before the exit.
    const told = (r: CommandOutput): boolean => r.lines.filter((l) => l.event === 'arrived').length >= 2 && r.lines.some((l) => l.event === 'left');
    await waitFor('two visits and a leaving told by each watcher', () => runs.every(told) || runs.some((r) => r.lines.some((l) => l.event === 'status' && l.state === 'stopped')), 90_000);
    for (const run of runs) run.stop();
    const codes = await Promise.all(runs.map((r) => r.exit));
    expect({ codes, stderr: runs.map((r) => (codes.some((c) => c !== 0) ? r.stderr().slice(-800) : '')) }).toEqual({ codes: [0, 0], stderr: ['', ''] });
    const store: HistoryStore = await openHistory({ location: server!.url, media });
    try {
      for (const [i, run] of runs.entries()) {
        const arrivals = run.lines.filter((l) => l.event === 'arrived');
        // Each watcher saw the clip's two people at least.
        expect(arrivals.length).toBeGreaterThanOrEqual(2);
        const lefts = new Map(run.lines.filter((l) => l.event === 'left').map((l) => [String(l.visit_id), l]));
        for (const arrived of arrivals) {
          const visit = await store.get(String(arrived.visit_id));
          const left = lefts.get(String(arrived.visit_id));
          const seen = { room: i, visit_id: arrived.visit_id, kept: visit === undefined ? null : summary(visit) };
          expect(seen).toEqual({
            room: i,
            visit_id: arrived.visit_id,
            kept: { kind: arrived.kind, room_id: rooms[i], stream_id: arrived.stream_id, arrived_at: arrived.arrived_at, left_at: left?.left_at ?? null, arrived: [arrived.time], left: left ? [left.time] : [], face: true, snapshot: true },
          });
          for (const ref of [visit!.face!, visit!.snapshot!]) expect((await readFile(store.mediaPath(ref))).length).toBe(ref.bytes);
        }
        // Every visit that ended was printed as arrived first (one watcher's lines, its own room's rows).
        expect([...lefts.keys()].every((id) => arrivals.some((a) => a.visit_id === id))).toBe(true);
        const rows = (await store.search({ room_id: rooms[i], limit: 1000 })).visits.map((v) => v.visit_id).sort();
        expect(rows).toEqual(arrivals.map((a) => String(a.visit_id)).sort());
        const stopped = run.lines.filter((l) => l.event === 'status').at(-1);
        expect(stopped).toMatchObject({ state: 'stopped', history: { dropped: 0 } });
      }
    } finally {
      await store.close();
    }
  }, 120_000);
});

/** What the test compares of a kept visit. */
function summary(v: VisitRecord): Record<string, unknown> {
  return {
    kind: v.kind,
    room_id: v.room_id,
    stream_id: v.stream_id,
    arrived_at: v.arrived_at,
    left_at: v.left_at,
    arrived: v.events.filter((e) => e.event === 'arrived').map((e) => e.time),
    left: v.events.filter((e) => e.event === 'left').map((e) => e.time),
    face: v.face !== null,
    snapshot: v.snapshot !== null,
  };
}
