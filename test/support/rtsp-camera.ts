import { randomBytes, randomInt } from 'node:crypto';
import net from 'node:net';
import { fmtp, parseH264, picturePayloads, rtpPacket, type H264Clip } from './h264-rtp';

/**
 * An RTSP IP camera for tests, on 127.0.0.1: RTSP/1.0 (RFC 2326) with RTP interleaved on the
 * TCP connection, Basic authentication, serving an H.264 Annex-B clip looped and paced in real
 * time, packetized per RFC 6184. UDP transport is refused (461): the tests read cameras over TCP.
 */

/** Settings of the camera. */
export interface RtspCameraOptions {
  /** The clip: an H.264 Annex-B elementary stream, one IDR first. */
  clip: Buffer;
  /** Pictures per second. */
  fps: number;
  user: string;
  password: string;
  /** Port to listen on (default: a free one). */
  port?: number;
  /** The stream's path (default /stream1). */
  path?: string;
}

/** A running camera. */
export interface RtspCameraServer {
  port: number;
  /** rtsp://127.0.0.1:port/path, without credentials. */
  url: string;
  /** Connections open now. */
  connections(): number;
  /** Destroys every connection at once, like a power cut, and stops listening. Idempotent. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

const PAYLOAD_TYPE = 96;
const CLOCK = 90_000;
const METHODS = 'OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER, SET_PARAMETER';
// A client this far behind (bytes queued on its socket) misses pictures until the next IDR.
const MAX_QUEUED = 4 * 1024 * 1024;

/** Starts the camera; resolves once it listens. */
export async function startRtspCameraServer(o: RtspCameraOptions): Promise<RtspCameraServer> {
  const clip = parseH264(o.clip);
  const streamPath = o.path ?? '/stream1';
  const expected = `Basic ${Buffer.from(`${o.user}:${o.password}`).toString('base64')}`;
  const connections = new Set<Connection>();
  let server: net.Server | undefined;
  let port = o.port ?? 0;
  const camera = { clip, fps: o.fps, streamPath, expected, base: () => `rtsp://127.0.0.1:${port}${streamPath}` };

  const start = async (): Promise<void> => {
    if (server) return;
    const s = net.createServer((socket) => {
      const c = new Connection(socket, camera);
      connections.add(c);
      socket.once('close', () => connections.delete(c));
    });
    server = s;
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        s.off('error', reject);
        resolve();
      });
    });
    port = (s.address() as net.AddressInfo).port;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const c of connections) c.destroy();
    connections.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await start();
  return {
    port,
    url: camera.base(),
    connections: () => connections.size,
    stop,
    start,
  };
}

interface Camera {
  clip: H264Clip;
  fps: number;
  streamPath: string;
  expected: string;
  base(): string;
}

interface Request {
  method: string;
  uri: string;
  version: string;
  headers: Map<string, string>;
}

/** One client connection: its requests, and at most one session sending RTP interleaved on it. */
class Connection {
  readonly #socket: net.Socket;
  readonly #camera: Camera;
  #buffer: Buffer = Buffer.alloc(0);
  #session?: { id: string; channel: number; ssrc: number; seq: number; rtp0: number; sender?: Sender };

  constructor(socket: net.Socket, camera: Camera) {
    this.#socket = socket;
    this.#camera = camera;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.#read(d));
    socket.on('error', () => undefined);
    socket.once('close', () => this.#session?.sender?.stop());
  }

  destroy(): void {
    this.#session?.sender?.stop();
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    while (this.#buffer.length > 0 && !this.#socket.destroyed) {
      if (this.#buffer[0] === 0x24) {
        // An interleaved packet from the client (its RTCP receiver reports): skipped.
        if (this.#buffer.length < 4) return;
        const end = 4 + this.#buffer.readUInt16BE(2);
        if (this.#buffer.length < end) return;
        this.#buffer = this.#buffer.subarray(end);
        continue;
      }
      const headEnd = this.#buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (this.#buffer.length > 64 * 1024) this.#socket.destroy();
        return;
      }
      const lines = this.#buffer.subarray(0, headEnd).toString('latin1').replace(/^(\r\n)+/, '').split('\r\n');
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const end = headEnd + 4 + (Number(headers.get('content-length')) || 0);
      if (this.#buffer.length < end) return;
      this.#buffer = this.#buffer.subarray(end);
      const [method = '', uri = '', version = ''] = lines[0].split(' ');
      this.#handle({ method, uri, version, headers });
    }
  }

  #reply(req: Request, status: number, reason: string, headers: Record<string, string> = {}, body = ''): void {
    const lines = [`RTSP/1.0 ${status} ${reason}`, `CSeq: ${req.headers.get('cseq') ?? '0'}`, 'Server: test-camera', `Date: ${new Date().toUTCString()}`];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    this.#socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  }

  #handle(req: Request): void {
    if (req.version !== 'RTSP/1.0') return this.#reply(req, 505, 'RTSP Version Not Supported');
    const { method } = req;
    if (method === 'OPTIONS') return this.#reply(req, 200, 'OK', { Public: METHODS });
    if (method === 'GET_PARAMETER' || method === 'SET_PARAMETER') return this.#reply(req, 200, 'OK', this.#sessionHeader());
    if (method === 'TEARDOWN') {
      this.#session?.sender?.stop();
      this.#session = undefined;
      return this.#reply(req, 200, 'OK');
    }
    if (method !== 'DESCRIBE' && method !== 'SETUP' && method !== 'PLAY') return this.#reply(req, 501, 'Not Implemented', { Public: METHODS });
    if (req.headers.get('authorization') !== this.#camera.expected) return this.#reply(req, 401, 'Unauthorized', { 'WWW-Authenticate': 'Basic realm="test-camera"' });
    const path = pathOf(req.uri);
    const stream = this.#camera.streamPath;
    if (method === 'DESCRIBE') {
      if (path !== stream && path !== `${stream}/`) return this.#reply(req, 404, 'Not Found');
      return this.#reply(req, 200, 'OK', { 'Content-Base': `${this.#camera.base()}/`, 'Content-Type': 'application/sdp' }, this.#sdp());
    }
    if (method === 'SETUP') return this.#setup(req, path);
    return this.#play(req);
  }

  #sessionHeader(): Record<string, string> {
    return this.#session ? { Session: `${this.#session.id};timeout=60` } : {};
  }

  #sdp(): string {
    return [
      'v=0',
      `o=- ${randomInt(1, 2 ** 31)} 1 IN IP4 127.0.0.1`,
      's=Test camera',
      'c=IN IP4 0.0.0.0',
      't=0 0',
      'a=control:*',
      'a=range:npt=0-',
      `m=video 0 RTP/AVP ${PAYLOAD_TYPE}`,
      `a=rtpmap:${PAYLOAD_TYPE} H264/${CLOCK}`,
      `a=fmtp:${PAYLOAD_TYPE} ${fmtp(this.#camera.clip)}`,
      `a=framerate:${this.#camera.fps}`,
      'a=control:trackID=0',
      '',
    ].join('\r\n');
  }

  #setup(req: Request, path: string): void {
    const stream = this.#camera.streamPath;
    if (path !== `${stream}/trackID=0` && path !== stream) return this.#reply(req, 404, 'Not Found');
    if (this.#session && sessionIdOf(req) !== this.#session.id) return this.#reply(req, 459, 'Aggregate Operation Not Allowed');
    // The client lists transports it accepts, best first; only RTP over the RTSP connection is served.
    const tcp = (req.headers.get('transport') ?? '').split(',').find((t) => /^RTP\/AVP\/TCP(;|$)/i.test(t.trim()));
    if (!tcp) return this.#reply(req, 461, 'Unsupported Transport');
    const channels = /interleaved=(\d+)(?:-(\d+))?/i.exec(tcp);
    const channel = channels ? Number(channels[1]) : 0;
    if (channel > 254) return this.#reply(req, 461, 'Unsupported Transport');
    this.#session ??= { id: randomBytes(8).toString('hex'), channel, ssrc: randomInt(0, 2 ** 32), seq: randomInt(0, 2 ** 16), rtp0: randomInt(0, 2 ** 32) };
    this.#session.channel = channel;
    const s = this.#session;
    this.#reply(req, 200, 'OK', {
      Transport: `RTP/AVP/TCP;unicast;interleaved=${channel}-${channel + 1};ssrc=${s.ssrc.toString(16).toUpperCase().padStart(8, '0')};mode="PLAY"`,
      ...this.#sessionHeader(),
    });
  }

  #play(req: Request): void {
    const s = this.#session;
    if (!s || sessionIdOf(req) !== s.id) return this.#reply(req, 454, 'Session Not Found');
    this.#reply(req, 200, 'OK', {
      Range: 'npt=0.000-',
      'RTP-Info': `url=${this.#camera.base()}/trackID=0;seq=${s.seq};rtptime=${s.rtp0}`,
      ...this.#sessionHeader(),
    });
    s.sender ??= new Sender(this.#socket, this.#camera, s);
  }
}

/** Sends the clip looped to one client, a picture every 1/fps s; RTP timestamps go on across loops. */
class Sender {
  readonly #socket: net.Socket;
  readonly #camera: Camera;
  readonly #s: { channel: number; ssrc: number; seq: number; rtp0: number };
  #sent = 0;
  #t0 = performance.now();
  #timer?: NodeJS.Timeout;
  #stopped = false;
  #skipping = false;

  constructor(socket: net.Socket, camera: Camera, session: { channel: number; ssrc: number; seq: number; rtp0: number }) {
    this.#socket = socket;
    this.#camera = camera;
    this.#s = session;
    this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #tick(): void {
    if (this.#stopped || this.#socket.destroyed) return;
    const frameMs = 1000 / this.#camera.fps;
    const now = performance.now();
    // Far behind (the process was busy): go on from now rather than send a burst.
    if (now - (this.#t0 + this.#sent * frameMs) > 1000) this.#t0 = now - this.#sent * frameMs;
    const { clip } = this.#camera;
    const picture = clip.pictures[this.#sent % clip.pictures.length];
    const timestamp = (this.#s.rtp0 + Math.round((this.#sent * CLOCK) / this.#camera.fps)) >>> 0;
    if (this.#socket.writableLength > MAX_QUEUED) this.#skipping = true;
    if (this.#skipping && picture.idr && this.#socket.writableLength <= MAX_QUEUED) this.#skipping = false;
    if (!this.#skipping) {
      const payloads = picturePayloads(clip, picture);
      const packets = payloads.map((payload, i) => {
        const rtp = rtpPacket({ payloadType: PAYLOAD_TYPE, marker: i === payloads.length - 1, seq: this.#s.seq, timestamp, ssrc: this.#s.ssrc, payload });
        this.#s.seq = (this.#s.seq + 1) & 0xffff;
        const frame = Buffer.alloc(4);
        frame[0] = 0x24;
        frame[1] = this.#s.channel;
        frame.writeUInt16BE(rtp.length, 2);
        return Buffer.concat([frame, rtp]);
      });
      this.#socket.write(Buffer.concat(packets));
    }
    this.#sent++;
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, this.#t0 + this.#sent * frameMs - performance.now()));
  }
}

/** The path of a request URI (absolute rtsp:// or just a path). */
function pathOf(uri: string): string {
  try {
    return new URL(uri).pathname;
  } catch {
    return uri.split('?')[0];
  }
}

function sessionIdOf(req: Request): string | undefined {
  return req.headers.get('session')?.split(';')[0].trim();
}
