import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, type FaultConfig, type RunningSandbox } from '../../sandbox';
import { CameraPublisher, liveFfmpegChildren, type CameraOptions } from '../../shared/publish';
import { StreamingClient } from '../../shared/streaming';
import { buildPackage } from '../watch/support/build';
import { waitFor } from '../watch/support/room';
import { freePort } from '../support/free-port';
import { startMjpegCamera, type MjpegCamera } from './support/cameras';
import { stillRunning, watchTree, type SeenProcess } from './support/process-tree';
import { readOutput } from '../support/command-output';

// `vision-streaming publish` stops when asked whatever its room is doing: SIGTERM and --duration end
// it within 5 s while the tickets are refused, the token endpoint fails, or the session rejoins, and
// no child it started outlives it. A room that cannot be joined at start ends it with exit 1.

const SECRET = 'sandbox-secret';
/** The bound the issue states for a stop, in ms. */
const STOP_BOUND_MS = 5000;

let sandbox: RunningSandbox;
let streaming: StreamingClient;
let camera: MjpegCamera;
let dir: string;
let bin: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0, streaming: { countDelayMs: 0 } });
  streaming = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: SECRET, retry: { retries: 6, baseDelayMs: 10, maxDelayMs: 100 } });
  camera = await startMjpegCamera([await readFile(path.join(__dirname, '..', 'fixtures', 'astronaut.jpg'))], { fps: 5 });
  dir = await mkdtemp(path.join(os.tmpdir(), 'publish-stop-'));
  ({ bin } = await buildPackage(path.join(dir, 'pkg')));
}, 120_000);

afterEach(async () => {
  sandbox.clearFaults();
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
  }
  child = undefined;
});

afterAll(async () => {
  await streaming?.close();
  await camera?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Run {
  lines: Record<string, unknown>[];
  stderr: () => string;
  text: () => string;
  /** The exit code and when it came (Date.now()). */
  exit: Promise<{ code: number | null; at: number }>;
  /** Every process the command started (recorded while it ran). */
  children: () => SeenProcess[];
}

function run(args: string[]): Run {
  const c = spawn(process.execPath, [bin, 'publish', '--auth-url', sandbox.url, '--sfu-url', sandbox.url, '--loopback', '--source', camera.url, '--size', '320x240', '--fps', '5', ...args], {
    env: { PATH: process.env.PATH ?? '', VS_CLIENT_ID: 'sandbox-client', VS_CLIENT_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = c;
  const tree = watchTree(c.pid!);
  const output = readOutput(c);
  const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
    c.once('exit', (code) => {
      tree.stop();
      resolve({ code, at: Date.now() });
    }),
  );
  return { lines: output.lines, stderr: output.stderr, text: () => output.stdout() + output.stderr(), exit, children: tree.seen };
}

/** Sends SIGTERM and expects exit 0 within the bound, with nothing the command started still running. */
async function terminate(r: Run): Promise<void> {
  const sent = Date.now();
  child!.kill('SIGTERM');
  const { code, at } = await r.exit;
  expect(code).toBe(0);
  expect(at - sent).toBeLessThan(STOP_BOUND_MS);
  expectNothingLeft(r);
}

function expectNothingLeft(r: Run): void {
  expect(r.children().filter(stillRunning).map((p) => p.command)).toEqual([]);
  expect(r.text()).not.toContain(SECRET);
  expect(r.text()).not.toContain(camera.password);
}

async function dropSockets(room: string): Promise<number> {
  const res = await fetch(`${sandbox.url}/_sandbox/streaming/drop-sockets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ room }) });
  return ((await res.json()) as { dropped: number }).dropped;
}

const state = (r: Run, s: string): boolean => r.lines.some((l) => l.state === s);

test('SIGTERM while the session rejoins a room that refuses tickets: exit 0 within 5 s, its ffmpeg gone', async () => {
  const room = await streaming.createRoom();
  const r = run(['--room', room.id]);
  await waitFor('live', () => state(r, 'live'), 60_000);
  // The tree is read every 50 ms, late on a loaded machine: its ffmpeg is waited for, not read at once.
  await waitFor('its ffmpeg in the process tree', () => r.children().some((p) => p.command.includes('ffmpeg')), 10_000);
  // Each ticket request now waits a second before its 429: the stop comes while one is in flight or in a backoff.
  sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
  expect(await dropSockets(room.id)).toBe(1);
  await waitFor('rejoining', () => r.lines.filter((l) => l.state === 'rejoining').length >= 2, 60_000);
  await terminate(r);
  expect(r.lines.at(-1)).toMatchObject({ event: 'status', state: 'stopped' });
}, 120_000);

test('SIGTERM while the first join waits for refused tickets: exit 0 within 5 s, nothing left', async () => {
  const room = await streaming.createRoom();
  sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
  const r = run(['--room', room.id]);
  await waitFor('connecting', () => state(r, 'connecting'), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(state(r, 'live')).toBe(false);
  await terminate(r);
  expect(r.lines.at(-1)).toMatchObject({ state: 'stopped' });
}, 60_000);

test('SIGTERM while the token endpoint fails (500): exit 0 within 5 s, nothing left', async () => {
  const room = await streaming.createRoom();
  sandbox.setFaults({ token: { serverError: 1, latencyMs: 300 } });
  const r = run(['--room', room.id]);
  await waitFor('connecting', () => state(r, 'connecting'), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await terminate(r);
}, 60_000);

test('--duration 2 while the tickets are refused, and while the token endpoint fails: exit 0 within 2 + 5 s', async () => {
  const room = await streaming.createRoom();
  const cases: FaultConfig[] = [{ tickets: { tooManyRequests: 1, latencyMs: 1000 } }, { token: { serverError: 1, latencyMs: 300 } }];
  for (const faults of cases) {
    sandbox.setFaults(faults);
    const r = run(['--room', room.id, '--duration', '2']);
    await waitFor('the first line', () => r.lines.length > 0, 30_000);
    // Counted from the first line, which comes once the command runs (the duration starts just before
    // it): Node's own start-up on a busy machine is not the command's to bound.
    const running = Date.now();
    const { code, at } = await r.exit;
    expect(code).toBe(0);
    expect(at - running).toBeLessThan(2000 + STOP_BOUND_MS);
    expect(state(r, 'live')).toBe(false);
    expectNothingLeft(r);
  }
}, 60_000);

test('a room that refuses every ticket: exit 1 after the stated attempts, a clear message, nothing left', async () => {
  const room = await streaming.createRoom();
  sandbox.setFaults({ tickets: { tooManyRequests: 1 } });
  // Two attempts (the default's five only wait longer): the second is the one after a rejoin's backoff.
  const r = run(['--room', room.id, '--join-attempts', '2']);
  const { code } = await r.exit;
  expect(code).toBe(1);
  expect(r.stderr()).toMatch(/could not start: .*could not join the room in 2 attempts/);
  expect(r.stderr()).toMatch(/429/);
  expect(r.lines.filter((l) => l.state === 'rejoining')).toHaveLength(1);
  expect(r.lines.at(-1)).toMatchObject({ state: 'stopped' });
  expectNothingLeft(r);

  const help = run(['--help']);
  expect((await help.exit).code).toBe(0);
  expect(help.text()).toMatch(/5 attempts/);
  expect(help.text()).toMatch(/--join-attempts N .*default 5/);
  const bad = run(['--room', room.id, '--join-attempts', '0']);
  expect((await bad.exit).code).toBe(2);
  expect(bad.stderr()).toMatch(/--join-attempts must be a whole number from 1 to 100/);
}, 120_000);

test('the service down (nothing listening): SIGTERM exits 0 within 5 s; left alone, exit 1 after the attempts', async () => {
  // A later flag wins: every call goes to a port where nothing listens.
  const down = `http://127.0.0.1:${await freePort()}`;
  const stopped = run(['--room', 'some-room', '--auth-url', down, '--sfu-url', down]);
  await waitFor('connecting', () => state(stopped, 'connecting'), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await terminate(stopped);

  const r = run(['--room', 'some-room', '--auth-url', down, '--sfu-url', down, '--join-attempts', '2']);
  const { code } = await r.exit;
  expect(code).toBe(1);
  expect(r.stderr()).toMatch(/could not start: .*could not join the room in 2 attempts/);
  expectNothingLeft(r);
}, 120_000);

describe('a camera publisher stopped during its start', () => {
  const options = (roomId: string): CameraOptions => ({ source: camera.url, width: 320, height: 240, fps: 5, getTicket: streaming.ticketSource(roomId, 'up'), loopbackOnly: true });
  const requestsTo = (endpoint: string): number => sandbox.stats().byEndpoint[endpoint] ?? 0;

  test('while it opens its source: start rejects with "stopped" and it never joins; so does a start after stop()', async () => {
    const room = await streaming.createRoom();
    const asked = requestsTo('tickets');
    const cam = new CameraPublisher(options(room.id));
    const started = cam.start();
    await cam.stop();
    await expect(started).rejects.toMatchObject({ code: 'stopped' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(requestsTo('tickets')).toBe(asked);
    expect(liveFfmpegChildren()).toBe(0);
    expect(cam.status).toMatchObject({ state: 'stopped' });
    // A camera stopped before it ever started says so too, and starts nothing.
    const unstarted = new CameraPublisher(options(room.id));
    await unstarted.stop();
    await expect(unstarted.start()).rejects.toMatchObject({ code: 'stopped' });
    expect(requestsTo('tickets')).toBe(asked);
  }, 30_000);

  test('while it waits for refused tickets: start rejects with "stopped" within 5 s of stop()', async () => {
    const room = await streaming.createRoom();
    sandbox.setFaults({ tickets: { tooManyRequests: 1, latencyMs: 1000 } });
    const asked = requestsTo('tickets');
    const cam = new CameraPublisher(options(room.id));
    const started = cam.start();
    started.catch(() => undefined);
    await waitFor('two ticket requests', () => requestsTo('tickets') >= asked + 2, 30_000);
    const stopAt = Date.now();
    await cam.stop();
    await expect(started).rejects.toMatchObject({ code: 'stopped' });
    expect(Date.now() - stopAt).toBeLessThan(STOP_BOUND_MS);
    expect(liveFfmpegChildren()).toBe(0);
  }, 60_000);
});
