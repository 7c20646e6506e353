import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FaceWatcher, type MatchEvent, type WatchEvent } from '../../shared/watch';
import { buildPackage } from '../watch/support/build';
import { collect, standardScene, startWatchHarness, waitFor, type StandardScene, type WatchHarness } from '../watch/support/room';
import { readOutput } from '../support/command-output';
import { doorFrames, startRtspCamera, type RtspCamera } from './support/cameras';

// `vision-streaming publish` run as a user runs it (the bin under the package's Node, the secret in
// VS_CLIENT_SECRET) with an RTSP camera on 127.0.0.1, and a face watcher with its defaults.

let h: WatchHarness;
let dir: string;
let bin: string;
let scene: StandardScene;
let camera: RtspCamera;
let child: ChildProcess | undefined;

beforeAll(async () => {
  h = await startWatchHarness();
  dir = await mkdtemp(path.join(os.tmpdir(), 'publish-cli-'));
  ({ bin } = await buildPackage(path.join(dir, 'pkg')));
  scene = await standardScene(h);
  camera = await startRtspCamera(await doorFrames(dir, scene.people.a));
}, 180_000);

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
  }
  child = undefined;
});

afterAll(async () => {
  await camera?.stop();
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const SECRET = 'sandbox-secret';

function run(args: string[], env: Record<string, string> = {}) {
  const c = spawn(process.execPath, [bin, 'publish', ...args], { env: { PATH: process.env.PATH ?? '', VS_CLIENT_SECRET: SECRET, VS_CLIENT_ID: 'sandbox-client', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child = c;
  const output = readOutput(c);
  const exit = new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code)));
  return { ...output, exit, pid: c.pid! };
}

/** The ffmpeg children of a process (a camera with a password is read through a loopback relay, so its port is on no command line). */
function ffmpegOf(pid: number): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, ppid, comm]) => Number(ppid) === pid && comm?.startsWith('ffmpeg'))
    .map(([child]) => Number(child));
}

/** True while a process runs (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

test('an RTSP camera published with the defaults is seen by a watcher with its defaults; it comes back after a camera restart; SIGTERM exits 0; no password shown', async () => {
  const room = await h.streaming.createRoom();
  const watcher = new FaceWatcher({ vision: h.vision, streaming: h.streaming, roomId: room.id, collectionId: scene.collectionId, loopbackOnly: true, cooldownSeconds: 0 });
  const events: WatchEvent[] = collect((n, fn) => watcher.on(n, fn));
  const matches = (): MatchEvent[] => events.filter((e): e is MatchEvent => e.event === 'match');
  try {
    await watcher.start();
    const r = run(['--room', room.id, '--source', camera.url, '--stall', '3', '--loopback'], { VS_AUTH_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url });
    await waitFor('live', () => r.lines.some((l) => l.state === 'live'), 60_000);
    const live = r.lines.find((l) => l.state === 'live')!;
    expect(live).toMatchObject({ event: 'status', camera: 1, room: room.id, codec: 'VP8', relayed: false, source: expect.stringContaining('rtsp://door:***@127.0.0.1') });
    const streamId = live.stream_id as string;
    expect(streamId).toBeTruthy();
    for (const l of r.lines) expect(l).toHaveProperty('stream_id');
    await waitFor('a match', () => matches().length > 0, 60_000);
    expect(matches()[0]).toMatchObject({ face_id: scene.faceA, stream_id: streamId });

    await camera.stop();
    await waitFor('camera_lost', () => r.lines.some((l) => l.state === 'camera_lost'), 30_000);
    await camera.start();
    const n = r.lines.length;
    await waitFor('live again', () => r.lines.slice(n).some((l) => l.state === 'live'), 60_000);
    const liveAgain = Date.parse(r.lines.slice(n).find((l) => l.state === 'live')!.time as string);
    await waitFor('a match after the restart', () => matches().some((m) => Date.parse(m.time) > liveAgain), 60_000);
    expect(matches().at(-1)).toMatchObject({ stream_id: streamId });
    const readers = ffmpegOf(r.pid);
    expect(readers).toHaveLength(1);

    child!.kill('SIGTERM');
    expect(await r.exit).toBe(0);
    expect(r.lines.at(-1)).toMatchObject({ state: 'stopped', stream_id: streamId });
    expect(r.stderr()).toContain(`as stream ${streamId}`);
    const text = r.stdout() + r.stderr();
    expect(text).not.toContain(camera.password);
    expect(text).not.toContain(SECRET);
    expect(readers.filter(running)).toEqual([]);
  } finally {
    await watcher.stop();
  }
}, 240_000);

test('--help; several cameras from a config file; bad options exit 2 naming the flag, the password hidden', async () => {
  const help = run(['--help']);
  expect(await help.exit).toBe(0);
  for (const flag of ['--room', '--create-room', '--source', '--config', '--codec', '--bit-rate', '--fps', '--size', '--transport', '--client-id', 'VS_CLIENT_SECRET']) expect(help.stdout()).toContain(flag);

  const bad = async (args: string[], flag: RegExp): Promise<string> => {
    const r = run(args);
    expect(await r.exit).toBe(2);
    expect(r.stderr()).toMatch(flag);
    return r.stderr();
  };
  await bad(['--room', 'r', '--source', camera.url, '--codec', 'AV1'], /--codec takes VP8 or H264/);
  await bad(['--room', 'r', '--source', camera.url, '--size', 'big'], /--size must be WIDTHxHEIGHT/);
  await bad(['--room', 'r', '--source', camera.url, '--fps', '500'], /--fps: camera 1: fps must be a whole number from 1 to 60/);
  await bad(['--room', 'r', '--source', camera.url, '--bogus'], /--bogus/);
  await bad(['--source', camera.url], /--room ID or --create-room NAME is required/);
  const scheme = await bad(['--room', 'r', '--source', 'rtmp://door:Sekr1t-pass@192.0.2.10/live'], /source .*unsupported scheme rtmp/);
  expect(scheme).not.toContain('Sekr1t-pass');
  await bad(['--room', 'r', '--source', '/dev/video97', '--auth-url', h.sandbox.url, '--sfu-url', h.sandbox.url, '--loopback'], /no such device: \/dev\/video97/);

  // Two cameras from a config file, into a room the command creates: each its own stream.
  const config = path.join(dir, 'cameras.json');
  await writeFile(config, JSON.stringify({ cameras: [{ source: camera.url, name: 'door', codec: 'H264' }, { source: camera.url, name: 'door-encoded', size: '320x240' }] }));
  const r = run(['--create-room', 'porch', '--config', config, '--loopback'], { VS_AUTH_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url });
  await waitFor('both live', () => ['door', 'door-encoded'].every((name) => r.lines.some((l) => l.camera === name && l.state === 'live')), 60_000);
  const roomLine = r.lines[0];
  expect(roomLine).toMatchObject({ event: 'room', name: 'porch' });
  const liveLines = r.lines.filter((l) => l.state === 'live');
  expect(new Set(liveLines.map((l) => l.stream_id)).size).toBe(2);
  expect(liveLines.find((l) => l.camera === 'door')).toMatchObject({ relayed: true, codec: 'H264', room: roomLine.room });
  child!.kill('SIGINT');
  expect(await r.exit).toBe(0);
  expect(r.stdout() + r.stderr()).not.toContain(camera.password);

  // The command killed outright (no chance to clean up): its ffmpeg ends with it, on the broken pipe.
  const killed = run(['--create-room', 'x', '--source', camera.url, '--codec', 'H264', '--loopback'], { VS_AUTH_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url });
  await waitFor('live', () => killed.lines.some((l) => l.state === 'live'), 60_000);
  const readers = ffmpegOf(killed.pid);
  expect(readers).toHaveLength(1);
  child!.kill('SIGKILL');
  await killed.exit;
  await waitFor('no ffmpeg left', () => readers.filter(running).length === 0, 15_000);
}, 180_000);

test('a camera URL with CR/LF, another control character or a blank exits 2 naming --source before anything is sent, the password hidden', async () => {
  const bad = async (source: string, what: RegExp): Promise<void> => {
    const r = run(['--room', 'r', '--source', source]);
    expect(await r.exit).toBe(2);
    expect(r.stderr()).toMatch(/--source: camera 1: source must not contain spaces or control characters/);
    expect(r.stderr()).toMatch(what);
    expect(r.stdout() + r.stderr()).not.toContain('Inj3ct-pass');
  };
  await bad('rtsp://door:Inj3ct-pass@192.0.2.10/x\r\nX-Injected: yes', /found CR/);
  await bad('rtsp://door:Inj3ct-pass@192.0.2.10/x\n', /found LF/);
  await bad('rtsp://192.0.2.10/x\ty', /found TAB/);
  await bad('rtsp://192.0.2.10/my stream', /found a space/);
}, 60_000);

test('a password given in --source: the command warns, and its own command line no longer shows it once it runs', async () => {
  const room = await h.streaming.createRoom();
  const password = 'Pw-On-Cmdline-77';
  const r = run(['--room', room.id, '--source', `rtsp://door:${password}@127.0.0.1:9/stream1`, '--loopback'], { VS_AUTH_URL: h.sandbox.url, VS_SFU_URL: h.sandbox.url });
  await waitFor('the warning', () => /can be read by other local users/.test(r.stderr()), 30_000);
  expect(r.stderr()).toMatch(/give it in VS_SOURCE or a --config file/);
  const cmdline = readFileSync(`/proc/${r.pid}/cmdline`, 'latin1');
  expect(cmdline).toContain('vision-streaming publish');
  expect(cmdline).not.toContain(password);
  expect(r.stdout() + r.stderr()).not.toContain(password);
  child!.kill('SIGTERM');
  expect(await r.exit).toBe(0);
}, 60_000);
