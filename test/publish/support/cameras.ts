import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { encodeClip, type Placement } from '../../watch/support/clip';

/**
 * Test cameras on 127.0.0.1: an RTSP IP camera (GStreamer's RTSP server, run by a small Python
 * script: H.264 Baseline over TCP, basic auth, paced in real time) and an MJPEG HTTP camera.
 */

const SCRIPT = path.join(__dirname, '..', '..', 'support', 'rtsp-camera.py');
// The system Python has the GObject bindings; a Python earlier on PATH (pyenv, venv) may not.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A running RTSP camera: its URL with credentials, and start/stop to play a reboot. */
export interface RtspCamera {
  /** rtsp://user:password@127.0.0.1:port/stream1 */
  url: string;
  password: string;
  /** Kills the server (SIGKILL, like a power cut) and waits for it to be gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

/** Starts an RTSP camera serving the JPEG frames in `framesDir` (0001.jpg ...) looped at `fps`. */
export async function startRtspCamera(framesDir: string, opts: { fps?: number; user?: string; password?: string } = {}): Promise<RtspCamera> {
  const port = await freePort();
  const user = opts.user ?? 'door';
  const password = opts.password ?? 'Pa55-word-rtsp';
  const fps = String(opts.fps ?? 10);
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const c = spawn(PYTHON, [SCRIPT, String(port), user, password, framesDir, fps], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    let err = '';
    c.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the RTSP camera did not start: ${err}`)), 20_000);
      readline.createInterface({ input: c.stdout! }).on('line', (line) => {
        if (line.trim() === 'ready') {
          clearTimeout(timer);
          resolve();
        }
      });
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the RTSP camera exited (${code}): ${err}`));
      });
    });
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGKILL');
    await gone;
  };
  await start();
  return { url: `rtsp://${user}:${password}@127.0.0.1:${port}/stream1`, password, stop, start };
}

/** An MJPEG camera: multipart/x-mixed-replace at `fps`, as ESP32-CAM boards serve, and a snapshot URL. */
export interface MjpegCamera {
  /** The stream: http://user:password@127.0.0.1:port/stream */
  url: string;
  /** A single picture: http://user:password@127.0.0.1:port/capture */
  snapshotUrl: string;
  password: string;
  /** Pictures sent so far. */
  sent(): number;
  stop(): Promise<void>;
}

/** Starts an MJPEG HTTP camera sending `pictures` in turn; answers 401 without the right Basic credentials. */
export async function startMjpegCamera(pictures: readonly Buffer[], opts: { fps?: number; user?: string; password?: string } = {}): Promise<MjpegCamera> {
  const user = opts.user ?? 'esp';
  const password = opts.password ?? 'Pa55-word-http';
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const boundary = '123456789000000000000987654321';
  let sent = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="camera"' }).end();
      return;
    }
    if (req.url === '/capture') {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(pictures[sent++ % pictures.length]);
      return;
    }
    if (req.url !== '/stream') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': `multipart/x-mixed-replace;boundary=${boundary}` });
    const timer = setInterval(() => {
      const jpeg = pictures[sent++ % pictures.length];
      res.write(`\r\n--${boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
      res.write(jpeg);
    }, 1000 / (opts.fps ?? 10));
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://${user}:${password}@127.0.0.1:${port}/stream`,
    snapshotUrl: `http://${user}:${password}@127.0.0.1:${port}/capture`,
    password,
    sent: () => sent,
    async stop() {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The JPEG frames of a short door-camera scene for the RTSP camera: the enrolled person A for 2 s
 * (drifting, so the video moves), then nobody for 1 s, at 10 fps. Returns their folder.
 */
export async function doorFrames(dir: string, personA: Placement['person']): Promise<string> {
  const at = { faceSide: 150, cx: 320, cy: 220 };
  await encodeClip(dir, 'door', [{ placements: [{ person: personA, ...at }], seconds: 2, drift: 4 }, { placements: [], seconds: 1 }], { codec: 'H264' });
  return path.join(dir, 'door-frames');
}
