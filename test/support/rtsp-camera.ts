import { createHash, randomBytes, randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { fmtp, parseH264, picturePayloads, rtpPacket, type H264Clip } from './h264-rtp';

/**
 * An RTSP IP camera for tests, on 127.0.0.1: RTSP/1.0 (RFC 2326) with RTP interleaved on the
 * TCP connection, Basic or Digest authentication (RFC 2617, MD5, with or without qop=auth),
 * serving an H.264 Annex-B clip looped and paced in real time, packetized per RFC 6184. UDP
 * transport is refused (461) unless asked for: most tests read cameras over TCP.
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
  /** The challenge it sends: Basic (default), Digest MD5 with qop=auth, or Digest MD5 without qop (RFC 2069 form). */
  auth?: 'basic' | 'digest' | 'digest-no-qop';
  /** Serve RTP over UDP too (RTP/AVP;unicast;client_port=...), sent to the client's address. */
  udp?: boolean;
}

/** One request the camera received: what a test checks of its client. */
export interface RtspCameraRequest {
  method: string;
  uri: string;
  /** The Authorization header as sent, if any. */
  authorization?: string;
  /** The Transport header as sent (SETUP), if any. */
  transport?: string;
  /** The answer's status. */
  status: number;
}

/** A running camera. */
export interface RtspCameraServer {
  port: number;
  /** rtsp://127.0.0.1:port/path, without credentials. */
  url: string;
  /** Connections open now. */
  connections(): number;
  /** Every request so far, in order. */
  requests(): RtspCameraRequest[];
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
  const log: RtspCameraRequest[] = [];
  let server: net.Server | undefined;
  let port = o.port ?? 0;
  const camera: Camera = { clip, fps: o.fps, streamPath, expected, user: o.user, password: o.password, auth: o.auth ?? 'basic', udp: o.udp ?? false, log, base: () => `rtsp://127.0.0.1:${port}${streamPath}` };

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
    requests: () => [...log],
    stop,
    start,
  };
}

interface Camera {
  clip: H264Clip;
  fps: number;
  streamPath: string;
  expected: string;
  user: string;
  password: string;
  auth: 'basic' | 'digest' | 'digest-no-qop';
  udp: boolean;
  log: RtspCameraRequest[];
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
  #session?: Session;
  // The Digest nonce this connection handed out, and the highest nonce count seen with it.
  readonly #nonce = randomBytes(12).toString('hex');
  #nc = 0;

  constructor(socket: net.Socket, camera: Camera) {
    this.#socket = socket;
    this.#camera = camera;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.#read(d));
    socket.on('error', () => undefined);
    socket.once('close', () => this.#endSession());
  }

  destroy(): void {
    this.#endSession();
    this.#socket.destroy();
  }

  #endSession(): void {
    this.#session?.sender?.stop();
    this.#session?.udp?.close();
    this.#session = undefined;
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
    this.#camera.log.push({ method: req.method, uri: req.uri, authorization: req.headers.get('authorization'), transport: req.headers.get('transport'), status });
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
      this.#endSession();
      return this.#reply(req, 200, 'OK');
    }
    if (method !== 'DESCRIBE' && method !== 'SETUP' && method !== 'PLAY') return this.#reply(req, 501, 'Not Implemented', { Public: METHODS });
    if (!this.#authorized(req)) return this.#reply(req, 401, 'Unauthorized', { 'WWW-Authenticate': this.#challenge() });
    const path = pathOf(req.uri);
    const stream = this.#camera.streamPath;
    if (method === 'DESCRIBE') {
      if (path !== stream && path !== `${stream}/`) return this.#reply(req, 404, 'Not Found');
      return this.#reply(req, 200, 'OK', { 'Content-Base': `${this.#camera.base()}/`, 'Content-Type': 'application/sdp' }, this.#sdp());
    }
    if (method === 'SETUP') return this.#setup(req, path);
    return this.#play(req);
  }

  #challenge(): string {
    const { auth } = this.#camera;
    if (auth === 'basic') return 'Basic realm="test-camera"';
    return `Digest realm="test-camera", nonce="${this.#nonce}"${auth === 'digest' ? ', qop="auth"' : ''}, algorithm=MD5, opaque="0paque"`;
  }

  /** Checks the request's credentials as the camera's scheme asks (RFC 2617 section 3.2.2 for Digest). */
  #authorized(req: Request): boolean {
    const header = req.headers.get('authorization') ?? '';
    const c = this.#camera;
    if (c.auth === 'basic') return header === c.expected;
    if (!header.startsWith('Digest ')) return false;
    const p = new Map<string, string>();
    for (const m of header.slice(7).matchAll(/([a-z]+)=(?:"([^"]*)"|([^,\s]*))/gi)) p.set(m[1].toLowerCase(), m[2] ?? m[3]);
    if (p.get('username') !== c.user || p.get('realm') !== 'test-camera' || p.get('nonce') !== this.#nonce || p.get('uri') !== req.uri || p.get('opaque') !== '0paque') return false;
    const md5 = (t: string): string => createHash('md5').update(t).digest('hex');
    const ha1 = md5(`${c.user}:test-camera:${c.password}`);
    const ha2 = md5(`${req.method}:${req.uri}`);
    if (c.auth === 'digest-no-qop') return p.get('response') === md5(`${ha1}:${this.#nonce}:${ha2}`);
    const nc = parseInt(p.get('nc') ?? '', 16);
    // A nonce count that does not grow is a replay (RFC 7616 section 3.4.5).
    if (p.get('qop') !== 'auth' || !(nc > this.#nc) || !p.get('cnonce')) return false;
    if (p.get('response') !== md5(`${ha1}:${this.#nonce}:${p.get('nc')}:${p.get('cnonce')}:auth:${ha2}`)) return false;
    this.#nc = nc;
    return true;
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
    // The client lists transports it accepts, best first; RTP over the RTSP connection is served, over UDP when enabled.
    const offers = (req.headers.get('transport') ?? '').split(',').map((t) => t.trim());
    const tcp = offers.find((t) => /^RTP\/AVP\/TCP(;|$)/i.test(t));
    const udp = this.#camera.udp ? offers.find((t) => /^RTP\/AVP(\/UDP)?;/i.test(t) && /client_port=\d+/i.test(t)) : undefined;
    if (!tcp && udp) return void this.#setupUdp(req, udp);
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
    s.sender ??= new Sender(s.udp ? udpOutput(s.udp, this.#socket.remoteAddress ?? '127.0.0.1', s.clientPort!) : tcpOutput(this.#socket), this.#camera, s);
  }

  /** SETUP over UDP: RTP goes from a socket of the camera's to the client's port, at the address the RTSP connection came from. */
  async #setupUdp(req: Request, offer: string): Promise<void> {
    if (this.#session) return this.#reply(req, 459, 'Aggregate Operation Not Allowed');
    const clientPort = Number(/client_port=(\d+)/i.exec(offer)![1]);
    const udp = dgram.createSocket('udp4');
    udp.on('error', () => undefined);
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    if (this.#socket.destroyed) return void udp.close();
    const serverPort = udp.address().port;
    this.#session = { id: randomBytes(8).toString('hex'), channel: 0, ssrc: randomInt(0, 2 ** 32), seq: randomInt(0, 2 ** 16), rtp0: randomInt(0, 2 ** 32), udp, clientPort };
    const s = this.#session;
    this.#reply(req, 200, 'OK', {
      Transport: `RTP/AVP;unicast;client_port=${clientPort}-${clientPort + 1};server_port=${serverPort}-${serverPort + 1};ssrc=${s.ssrc.toString(16).toUpperCase().padStart(8, '0')};mode="PLAY"`,
      ...this.#sessionHeader(),
    });
  }
}

interface Session {
  id: string;
  channel: number;
  ssrc: number;
  seq: number;
  rtp0: number;
  sender?: Sender;
  /** RTP over UDP: the camera's socket and the client's RTP port. */
  udp?: dgram.Socket;
  clientPort?: number;
}

/** Where a sender's RTP packets go: interleaved on the RTSP connection, or datagrams. */
interface RtpOutput {
  send(packets: Buffer[], channel: number): void;
  /** Bytes queued and not yet sent (a client falling behind). */
  queued(): number;
  closed(): boolean;
}

function tcpOutput(socket: net.Socket): RtpOutput {
  return {
    send(packets, channel) {
      const framed = packets.map((rtp) => {
        const frame = Buffer.alloc(4);
        frame[0] = 0x24;
        frame[1] = channel;
        frame.writeUInt16BE(rtp.length, 2);
        return Buffer.concat([frame, rtp]);
      });
      socket.write(Buffer.concat(framed));
    },
    queued: () => socket.writableLength,
    closed: () => socket.destroyed,
  };
}

function udpOutput(udp: dgram.Socket, address: string, port: number): RtpOutput {
  let closed = false;
  udp.once('close', () => (closed = true));
  return {
    send(packets) {
      for (const rtp of packets) if (!closed) udp.send(rtp, port, address.replace(/^::ffff:/, ''));
    },
    queued: () => 0,
    closed: () => closed,
  };
}

/** Sends the clip looped to one client, a picture every 1/fps s; RTP timestamps go on across loops. */
class Sender {
  readonly #out: RtpOutput;
  readonly #camera: Camera;
  readonly #s: { channel: number; ssrc: number; seq: number; rtp0: number };
  #sent = 0;
  #t0 = performance.now();
  #timer?: NodeJS.Timeout;
  #stopped = false;
  #skipping = false;

  constructor(out: RtpOutput, camera: Camera, session: { channel: number; ssrc: number; seq: number; rtp0: number }) {
    this.#out = out;
    this.#camera = camera;
    this.#s = session;
    this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #tick(): void {
    if (this.#stopped || this.#out.closed()) return;
    const frameMs = 1000 / this.#camera.fps;
    const now = performance.now();
    // Far behind (the process was busy): go on from now rather than send a burst.
    if (now - (this.#t0 + this.#sent * frameMs) > 1000) this.#t0 = now - this.#sent * frameMs;
    const { clip } = this.#camera;
    const picture = clip.pictures[this.#sent % clip.pictures.length];
    const timestamp = (this.#s.rtp0 + Math.round((this.#sent * CLOCK) / this.#camera.fps)) >>> 0;
    if (this.#out.queued() > MAX_QUEUED) this.#skipping = true;
    if (this.#skipping && picture.idr && this.#out.queued() <= MAX_QUEUED) this.#skipping = false;
    if (!this.#skipping) {
      const payloads = picturePayloads(clip, picture);
      const packets = payloads.map((payload, i) => {
        const rtp = rtpPacket({ payloadType: PAYLOAD_TYPE, marker: i === payloads.length - 1, seq: this.#s.seq, timestamp, ssrc: this.#s.ssrc, payload });
        this.#s.seq = (this.#s.seq + 1) & 0xffff;
        return rtp;
      });
      this.#out.send(packets, this.#s.channel);
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
