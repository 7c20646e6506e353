import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { runFfmpeg } from '../../streaming/support/ffmpeg';
import { parseH264 } from '../../support/h264-rtp';
import { startRtspCameraServer } from '../../support/rtsp-camera';
import { encodeClip, type Placement } from '../../support/clip';

/**
 * Test cameras on 127.0.0.1: an RTSP IP camera (test/support/rtsp-camera.ts: H.264 Baseline over
 * TCP, basic auth, paced in real time) and an MJPEG HTTP camera.
 */

/** A running RTSP camera: its URL with credentials, and start/stop to play a reboot. */
export interface RtspCamera {
  /** rtsp://user:password@127.0.0.1:port/stream1 */
  url: string;
  password: string;
  /** Cuts every connection at once (like a power cut) and stops listening. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/** Starts an RTSP camera serving the JPEG frames in `framesDir` (0001.jpg ...) as H.264, looped at `fps`. */
export async function startRtspCamera(framesDir: string, opts: { fps?: number; user?: string; password?: string } = {}): Promise<RtspCamera> {
  const user = opts.user ?? 'door';
  const password = opts.password ?? 'Pa55-word-rtsp';
  const fps = opts.fps ?? 10;
  const clip = await encodeCameraClip(framesDir, fps);
  const server = await startRtspCameraServer({ clip, fps, user, password, path: '/stream1' });
  return { url: `rtsp://${user}:${password}@127.0.0.1:${server.port}/stream1`, password, stop: server.stop, start: server.start };
}

/**
 * The frames as the camera's H.264 clip: Baseline, a key frame a second, one slice per picture
 * (one encoder thread: x264's sliced threads cut pictures in several slices, which the dev ffmpeg
 * mishandles in key frames it reads over RTSP). Both properties are checked.
 */
async function encodeCameraClip(framesDir: string, fps: number): Promise<Buffer> {
  const gop = String(fps);
  const r = await runFfmpeg([
    '-v', 'error', '-framerate', String(fps), '-i', path.join(framesDir, '%04d.jpg'),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
    '-threads', '1', '-g', gop, '-keyint_min', gop, '-sc_threshold', '0', '-f', 'h264', 'pipe:1',
  ]);
  if (r.code !== 0) throw new Error(`ffmpeg could not encode the camera's clip: ${r.stderr}`);
  const { pictures } = parseH264(r.stdout);
  if (pictures.some((p) => p.slices !== 1)) throw new Error('the camera clip has pictures of several slices');
  let sinceKey = 0;
  for (const p of pictures) {
    sinceKey = p.idr ? 0 : sinceKey + 1;
    if (sinceKey >= fps) throw new Error('the camera clip has key frames more than a second apart');
  }
  return r.stdout;
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
 * (drifting, so the video moves), then nobody for 3 s, at 10 fps. Returns their folder. The empty
 * part outlasts the watcher's tracker (a face unseen for 2 s is gone), so every appearance is a new
 * face to compare: a match within one loop of a camera's restart, not at the next 30 s recheck.
 */
export async function doorFrames(dir: string, personA: Placement['person']): Promise<string> {
  const at = { faceSide: 150, cx: 320, cy: 220 };
  await encodeClip(dir, 'door', [{ placements: [{ person: personA, ...at }], seconds: 2, drift: 4 }, { placements: [], seconds: 3 }], { codec: 'H264' });
  return path.join(dir, 'door-frames');
}
