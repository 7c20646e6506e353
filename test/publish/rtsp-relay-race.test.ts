import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { openCameraSource, type CameraSource, type CameraSourceState } from '../../shared/publish';
import { runFfmpeg, testFfmpeg } from '../streaming/support/ffmpeg';
import { startRtspCameraServer, type RtspCameraServer } from '../support/rtsp-camera';
import { waitFor } from '../watch/support/room';

// Another local user racing the loopback relay that reads an RTSP camera with a password for
// ffmpeg: a process of uid 65534 polls /proc/net/tcp for a new 127.0.0.1 listener, connects to it
// and asks for the camera's stream and for another path. The relay must answer it nothing and
// keep listening for its own ffmpeg, which reads the stream; the camera sees no request but
// ffmpeg's. The real ffmpeg starts only once the intruder has had its go (a wrapper waits for
// it), so the intruder is always first, as a polling process nearly always is.

const NOBODY = 65534;
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const skipReason =
  process.platform !== 'linux' || !existsSync('/proc/net/tcp')
    ? 'needs Linux and /proc/net/tcp'
    : process.getuid?.() !== 0
      ? 'runs as root only (it starts a process as uid 65534); CI runs as root'
      : !SETPRIV
        ? 'needs setpriv (util-linux) to start a process as uid 65534'
        : undefined;

/** The intruder: plain CommonJS run by node as uid 65534; prints one JSON line per listener it tried. */
const INTRUDER = String.raw`
const fs = require('node:fs');
const net = require('node:net');
const paths = process.argv.slice(2);
function listeners() {
  const ports = new Set();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = fs.readFileSync(file, 'latin1'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== '0A' || !f[1]) continue;
      const [addr, port] = f[1].split(':');
      if (addr === '0100007F' || addr === '0000000000000000FFFF00000100007F') ports.add(parseInt(port, 16));
    }
  }
  return ports;
}
function attack(port) {
  const socket = net.connect(port, '127.0.0.1');
  let received = Buffer.alloc(0), connected = false, error, done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    socket.destroy();
    process.stdout.write(JSON.stringify({ port, connected, error, received: received.toString('latin1') }) + '\n');
  };
  const timer = setTimeout(finish, 1500);
  socket.on('connect', () => {
    connected = true;
    socket.write(paths.map((p, i) => 'DESCRIBE rtsp://127.0.0.1:' + port + p + ' RTSP/1.0\r\nCSeq: ' + (i + 1) + '\r\nAccept: application/sdp\r\n\r\n').join(''));
  });
  socket.on('data', (d) => { received = Buffer.concat([received, d]); });
  socket.on('error', (e) => { error = e.code; });
  socket.on('close', finish);
}
const known = listeners();
const tried = new Set();
const stopAt = Date.now() + 30000;
(function poll() {
  if (Date.now() > stopAt) return;
  for (const port of listeners()) if (!known.has(port) && !tried.has(port)) { tried.add(port); attack(port); }
  setTimeout(poll, 2);
})();
process.stdout.write(JSON.stringify({ ready: true, uid: process.getuid() }) + '\n');
`;

interface Attempt {
  port: number;
  connected: boolean;
  error?: string;
  received: string;
}

let dir: string;
let clip: Buffer;
let nodeBin: string;

beforeAll(async () => {
  if (skipReason) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'rtsp-race-'));
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, 'intruder.js'), INTRUDER, { mode: 0o644 });
  // The node binary as uid 65534 may run it: this one if its folders let it, else a copy.
  nodeBin = process.execPath;
  try {
    execFileSync(SETPRIV!, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', nodeBin, '-e', '0'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    nodeBin = path.join(dir, 'node');
    copyFileSync(process.execPath, nodeBin);
    chmodSync(nodeBin, 0o755);
  }
  const r = await runFfmpeg([
    '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25', '-frames:v', '25',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
    '-threads', '1', '-g', '25', '-f', 'h264', 'pipe:1',
  ]);
  expect(r.code).toBe(0);
  clip = r.stdout;
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts the intruder as uid 65534; resolves once it has read the listeners there are before the relay's. */
async function startIntruder(paths: string[], attempts: Map<number, Attempt>): Promise<ChildProcess> {
  const child = spawn(SETPRIV!, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', nodeBin, path.join(dir, 'intruder.js'), ...paths], { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let ready: { uid: number } | undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = JSON.parse(line) as Attempt & { ready?: boolean; uid: number };
    if (m.ready) ready = m;
    else {
      attempts.set(m.port, m);
      // The wrapper of ffmpeg that reads this port may start it now.
      writeFileSync(path.join(dir, `tried-${m.port}`), '');
    }
  });
  await waitFor('the intruder ready', () => ready !== undefined || child.exitCode !== null, 10_000);
  if (!ready) throw new Error(`the intruder did not start as uid ${NOBODY}: ${stderr.slice(0, 500)}`);
  expect(ready).toEqual({ ready: true, uid: NOBODY });
  return child;
}

/** An ffmpeg that starts once the intruder has tried the relay port on its command line (at most 10 s later). */
async function gatedFfmpeg(): Promise<string> {
  const wrapper = path.join(dir, 'ffmpeg-gated');
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      'port=',
      'for a in "$@"; do case "$a" in rtsp://127.0.0.1:*) p="${a#rtsp://127.0.0.1:}"; port="${p%%/*}";; esac; done',
      `: > "${dir}/ffmpeg-$port"`,
      'i=0',
      `while [ ! -e "${dir}/tried-$port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`,
      `exec "${await testFfmpeg()}" "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return wrapper;
}

(skipReason ? test.skip : test)(`another user's process that connects to the relay first gets nothing, and the owner's ffmpeg still reads the stream${skipReason ? ` (skipped: ${skipReason})` : ''}`, async () => {
  const password = 'Race-Pa55-word';
  const attempts = new Map<number, Attempt>();
  let camera: RtspCameraServer | undefined;
  let intruder: ChildProcess | undefined;
  let source: CameraSource | undefined;
  let reading: Promise<void> | undefined;
  try {
    camera = await startRtspCameraServer({ clip, fps: 25, user: 'door', password, auth: 'digest', path: '/stream1' });
    intruder = await startIntruder(['/stream1', '/other'], attempts);
    const opened = await openCameraSource({ source: `rtsp://door:${password}@127.0.0.1:${camera.port}/stream1`, codec: 'H264', ffmpegPath: await gatedFfmpeg(), stallSeconds: 5, maxRetrySeconds: 1 });
    source = opened.source as CameraSource;
    const states: CameraSourceState[] = [];
    source.on('state', (s) => states.push(s));
    let frames = 0;
    const src = source;
    reading = (async () => {
      for await (const frame of src.frames()) if (frame && ++frames >= 5) break;
    })();

    // The relay's port is the one its ffmpeg was given; the intruder tried it before ffmpeg ran.
    let relayPort = 0;
    await waitFor('ffmpeg started on a relay port', () => {
      relayPort = [...attempts.keys()].find((p) => existsSync(path.join(dir, `ffmpeg-${p}`))) ?? 0;
      return relayPort > 0;
    }, 15_000);
    const attempt = attempts.get(relayPort)!;
    // It connected (the kernel accepts before the relay sees the peer) and got not one byte: no SDP, no answer at all.
    expect(attempt.connected).toBe(true);
    expect(attempt.received).toBe('');

    await waitFor('frames from the camera through the relay', () => frames >= 5, 20_000);
    expect(states.filter((s) => s.state === 'lost')).toEqual([]);
    // The camera saw ffmpeg's requests for its stream only: none for the other path, none of the intruder's.
    const base = `rtsp://127.0.0.1:${camera.port}/stream1`;
    const requests = camera.requests();
    expect(requests.filter((r) => !r.uri.startsWith(base))).toEqual([]);
    expect(requests.filter((r) => r.method === 'DESCRIBE' && r.status === 200)).toHaveLength(1);
  } finally {
    if (intruder && intruder.exitCode === null) intruder.kill();
    await source?.close();
    await reading?.catch(() => undefined);
    await camera?.stop();
  }
}, 60_000);

test('ffmpeg refused a connection on a port whose number holds 401: the camera is lost, its credentials are not blamed', async () => {
  // A closed port with 401 in its number, as a relay's random port can have.
  let port = 0;
  for (const candidate of [24010, 24011, 34012, 40133, 44015, 54016]) {
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer().once('error', () => resolve(false));
      s.listen(candidate, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) {
      port = candidate;
      break;
    }
  }
  expect(port).toBeGreaterThan(0);
  const { source } = await openCameraSource({ source: `rtsp://127.0.0.1:${port}/stream1`, codec: 'H264', stallSeconds: 5, maxRetrySeconds: 1 });
  const camera = source as CameraSource;
  const states: CameraSourceState[] = [];
  camera.on('state', (s) => states.push(s));
  const reading = (async () => {
    for await (const frame of camera.frames()) if (frame) break;
  })();
  try {
    await waitFor('the camera lost', () => states.some((s) => s.state === 'lost'), 15_000);
    const lost = states.find((s) => s.state === 'lost') as Extract<CameraSourceState, { state: 'lost' }>;
    expect(lost.reason).toContain(String(port));
    expect(lost.refused).toBe(false);
    expect(lost.reason).not.toMatch(/credentials/);
  } finally {
    await camera.close();
    await reading.catch(() => undefined);
  }
}, 30_000);
