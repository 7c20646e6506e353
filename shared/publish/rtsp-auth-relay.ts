import net from 'node:net';
import tls from 'node:tls';
import { parseChallenges, pickChallenge, RtspAuthorizer, type RtspCredentials } from './rtsp-auth';
import { headerValue, headerValues, RtspProtocolError, RtspReader, type RtspMessage } from './rtsp-message';
import { peerUser } from './rtsp-relay-peer';
import { StreamScope } from './rtsp-relay-scope';

/** A request sent to the camera, kept until its answer came: it may have to be sent again with credentials. */
interface Pending {
  method: string;
  uri: string;
  version: string;
  /** Headers of the client's request but CSeq and Authorization. */
  headers: [string, string][];
  body: Buffer;
  clientCseq: string;
  /** Already sent again after a 401: a second 401 goes back to the client. */
  retried: boolean;
}

/** Where the relay connects: the camera's address and credentials, read from its URL. */
interface CameraTarget {
  tls: boolean;
  host: string;
  port: number;
  /** scheme://host[:port] as written, without user info: what request URIs name. */
  origin: string;
  /** Path and query of the stream. */
  path: string;
  credentials: RtspCredentials;
}

/**
 * A loopback RTSP relay that keeps a camera's credentials out of ffmpeg: ffmpeg reads
 * rtsp://127.0.0.1:PORT/path with no user info (nothing secret on its command line), the relay
 * connects to the camera (TLS for rtsps://), points each request's URI at the camera and answers
 * the camera's challenge itself (Basic, Digest MD5), then authorises every later request.
 * Interleaved RTP/RTCP passes both ways untouched; responses go back as they are but for their
 * CSeq (the relay numbers its own requests, one more for each it sends again) and a UDP SETUP
 * answer without a source (see withUdpSource). Only the control connection goes through it: RTP
 * over UDP flows between camera and ffmpeg directly.
 *
 * It serves one connection: the first one made by a process of this same user (on Linux, the
 * peer's socket's owner read from /proc/net/tcp before a byte is read or sent), and stops
 * listening then; connections of other users are closed unanswered, and it keeps listening for
 * its own ffmpeg. Where the peer's user cannot be known (no /proc/net/tcp: macOS, Windows) the
 * first connection is served. Only the configured stream is relayed (see StreamScope): a request
 * for another URI is answered 404 by the relay and never reaches the camera. Each ffmpeg attempt
 * gets a relay of its own.
 */
export class RtspAuthRelay {
  /** The URL ffmpeg reads: rtsp://127.0.0.1:PORT/path?query. */
  readonly url: string;
  /** rtsp://127.0.0.1:PORT, to replace in messages shown (they name the camera). */
  readonly origin: string;
  readonly #camera: CameraTarget;
  readonly #server: net.Server;
  #client?: net.Socket;
  #upstream?: net.Socket;
  #authorizer?: RtspAuthorizer;
  #cseq = 0;
  readonly #pending = new Map<number, Pending>();
  readonly #scope: StreamScope;
  /** Connections whose peer's user is being checked. */
  #checking = 0;
  #failure?: string;
  #refused = false;
  #closed = false;

  private constructor(camera: CameraTarget, server: net.Server, port: number) {
    this.#camera = camera;
    this.#server = server;
    this.origin = `rtsp://127.0.0.1:${port}`;
    this.url = `${this.origin}${camera.path}`;
    this.#scope = new StreamScope(`${camera.origin}${camera.path}`);
    server.on('connection', (socket) => void this.#admit(socket));
    server.on('error', () => undefined);
  }

  /** Starts a relay for a camera URL with user info (rtsp:// or rtsps://); resolves once it listens on 127.0.0.1. */
  static async start(cameraUrl: string): Promise<RtspAuthRelay> {
    const camera = cameraTarget(cameraUrl);
    const server = net.createServer({ noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new RtspAuthRelay(camera, server, (server.address() as net.AddressInfo).port);
  }

  /** Why the relay ended the connection itself (the camera unreachable, not RTSP), if it did. Names no credentials. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** True once the camera refused the relay's answer to its challenge (or offered none the relay speaks). */
  get refused(): boolean {
    return this.#refused;
  }

  /** Stops listening and destroys both connections. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#server.close();
    this.#client?.destroy();
    this.#upstream?.destroy();
  }

  /** Ends both connections for a reason of the relay's own; after close() (ffmpeg gone first) nothing is recorded. */
  #fail(reason: string): void {
    if (this.#closed) return;
    this.#failure = reason;
    this.close();
  }

  /** Serves a connection only once its peer is known to be this user's; others are closed unread and the relay listens on. */
  async #admit(socket: net.Socket): Promise<void> {
    socket.pause();
    socket.on('error', () => undefined);
    // A flood of connections is not checked one by one: the relay's own ffmpeg retries.
    if (this.#client || this.#closed || this.#checking >= MAX_CHECKING) {
      socket.destroy();
      return;
    }
    this.#checking++;
    const who = await peerUser(socket).catch(() => 'unknown' as const);
    this.#checking--;
    if (this.#client || this.#closed || socket.destroyed) {
      socket.destroy();
      return;
    }
    if (who !== 'same' && who !== 'unchecked') {
      socket.destroy();
      return;
    }
    this.#accept(socket);
  }

  #accept(socket: net.Socket): void {
    this.#client = socket;
    this.#server.close();
    socket.setNoDelay(true);
    // Nothing is read from the client until the camera is connected.
    socket.pause();
    socket.on('error', () => this.close());
    socket.once('close', () => this.close());
    const c = this.#camera;
    const where = `${c.host}:${c.port}`;
    // Cameras serve self-signed certificates; ffmpeg, which read rtsps:// URLs before, does not verify them either.
    const upstream = c.tls ? tls.connect({ host: c.host, port: c.port, servername: net.isIP(c.host) ? undefined : c.host, rejectUnauthorized: false }) : net.connect({ host: c.host, port: c.port });
    this.#upstream = upstream;
    upstream.setNoDelay(true);
    upstream.once(c.tls ? 'secureConnect' : 'connect', () => {
      if (this.#closed) return;
      const toCamera = new RtspReader(
        (m) => this.#fromClient(m),
        (bytes) => this.#write(upstream, bytes, socket),
      );
      const toClient = new RtspReader(
        (m) => this.#fromCamera(m),
        (bytes) => this.#write(socket, bytes, upstream),
      );
      socket.on('data', (d: Buffer) => this.#read(toCamera, d));
      upstream.on('data', (d: Buffer) => this.#read(toClient, d));
      socket.resume();
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => this.#fail(`cannot reach the camera at ${where} (${err.code ?? err.message})`));
    upstream.once('close', () => this.#fail('the camera closed the connection'));
  }

  #read(reader: RtspReader, data: Buffer): void {
    if (this.#closed) return;
    try {
      reader.push(data);
    } catch (err) {
      this.#fail(err instanceof RtspProtocolError ? `the RTSP connection carried ${err.message}` : `the RTSP relay failed (${(err as Error).message})`);
    }
  }

  /** Writes to one side; when that side is slow, the other is paused until it drains. */
  #write(to: net.Socket, bytes: Buffer, from: net.Socket): void {
    if (this.#closed) return;
    if (!to.write(bytes) && !from.isPaused()) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  }

  #fromClient(m: RtspMessage): void {
    const upstream = this.#upstream!;
    // A response to a request the camera made (rare): as it is.
    if (m.startLine.startsWith('RTSP/')) return this.#write(upstream, raw(m), this.#client!);
    const [method = '', uri = '', version = 'RTSP/1.0'] = m.startLine.split(' ');
    const headers = m.headers.filter(([n]) => !/^(cseq|authorization)$/i.test(n));
    const clientCseq = headerValue(m.headers, 'cseq') ?? '0';
    const target = this.#toCamera(uri);
    // Not the configured stream: answered here, so no request for it carries the credentials.
    if (!this.#scope.allows(method, target)) return this.#write(this.#client!, Buffer.from(`RTSP/1.0 404 Not Found\r\nCSeq: ${clientCseq.replace(/[\r\n]/g, '')}\r\nContent-Length: 0\r\n\r\n`, 'latin1'), upstream);
    this.#send({ method, uri: target, version, headers, body: m.body, clientCseq, retried: false });
  }

  #send(p: Pending): void {
    const cseq = ++this.#cseq;
    this.#pending.set(cseq, p);
    const lines = [`${p.method} ${p.uri} ${p.version}`, `CSeq: ${cseq}`, ...p.headers.map(([n, v]) => `${n}: ${v}`)];
    if (this.#authorizer) lines.push(`Authorization: ${this.#authorizer.header(p.method, p.uri)}`);
    this.#write(this.#upstream!, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), p.body]), this.#client!);
  }

  #fromCamera(m: RtspMessage): void {
    const client = this.#client!;
    // A request from the camera (ANNOUNCE, a keepalive of its own): as it is.
    if (!m.startLine.startsWith('RTSP/')) return this.#write(client, raw(m), this.#upstream!);
    const cseq = Number(headerValue(m.headers, 'cseq'));
    const p = this.#pending.get(cseq);
    if (!p) return this.#write(client, raw(m), this.#upstream!);
    this.#pending.delete(cseq);
    const status = Number(m.startLine.split(' ')[1]);
    if (status === 401) {
      const challenge = pickChallenge(parseChallenges(headerValues(m.headers, 'www-authenticate')));
      // The first 401 of a request is answered (a stale nonce later on too); a second one goes to the client.
      if (challenge && !p.retried) {
        this.#authorizer = new RtspAuthorizer(this.#camera.credentials, challenge);
        this.#send({ ...p, retried: true });
        return;
      }
      this.#refused = true;
    }
    if (p.method.toUpperCase() === 'DESCRIBE' && status >= 200 && status < 300) this.#scope.learn(m.headers, m.body);
    let head = m.head.replace(/^(CSeq[ \t]*:)[^\r\n]*/im, `$1 ${p.clientCseq}`);
    if (p.method.toUpperCase() === 'SETUP' && status === 200) head = withUdpSource(head, this.#upstream!.remoteAddress);
    this.#write(client, Buffer.concat([Buffer.from(head + m.separator, 'latin1'), m.body]), this.#upstream!);
  }

  /** A request URI of the client, pointed at the camera: its origin replaced by the camera's, user info dropped. */
  #toCamera(uri: string): string {
    return rewriteRequestUri(uri, this.origin, this.#camera.origin);
  }
}

/** Connections whose peer is being checked at once; more are closed at once. */
const MAX_CHECKING = 16;

/**
 * A request URI as the camera must see it: one naming the relay (`relayOrigin`) or the camera
 * names the camera's origin, without user info; `*` and any other URI stay as they are.
 */
export function rewriteRequestUri(uri: string, relayOrigin: string, cameraOrigin: string): string {
  const m = /^(rtsps?:\/\/)([^/?#]*)(.*)$/i.exec(uri);
  if (!m) return uri;
  const host = m[2].slice(m[2].lastIndexOf('@') + 1).toLowerCase();
  const relayHost = relayOrigin.replace(/^rtsps?:\/\//i, '').toLowerCase();
  const cameraHost = cameraOrigin.replace(/^rtsps?:\/\//i, '').toLowerCase();
  if (host === relayHost || host === cameraHost) return `${cameraOrigin}${m[3]}`;
  return uri;
}

/**
 * A SETUP answer for RTP over UDP names the camera's address as the source (RFC 2326 section
 * 12.39) when it names none: ffmpeg sends its RTCP reports and the packets that open a NAT's way
 * to the host it connected to, which is the relay, not the camera. Anything else stays as it is.
 */
export function withUdpSource(head: string, cameraAddress: string | undefined): string {
  if (!cameraAddress) return head;
  const address = cameraAddress.replace(/^::ffff:/i, '');
  return head.replace(/^(Transport[ \t]*:[ \t]*)([^\r\n]*)/im, (line, name: string, value: string) => {
    if (/\/TCP|interleaved=|(^|;)\s*source=|multicast/i.test(value) || value.includes(',')) return line;
    return `${name}${value.replace(/;?\s*$/, '')};source=${address}`;
  });
}

/** What the relay needs of a camera URL; the URL was checked by parseCameraSource. */
function cameraTarget(cameraUrl: string): CameraTarget {
  let url: URL;
  try {
    url = new URL(cameraUrl);
  } catch {
    // Node's URL error carries the whole input, password included: none of it goes on.
    throw new Error('the camera URL cannot be read');
  }
  const secure = url.protocol.toLowerCase() === 'rtsps:';
  return {
    tls: secure,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 322 : 554,
    origin: `${url.protocol}//${url.host}`,
    path: `${url.pathname}${url.search}`,
    credentials: { user: decode(url.username), password: decode(url.password) },
  };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape: the camera gets it as written.
    return text;
  }
}

function raw(m: RtspMessage): Buffer {
  return Buffer.concat([Buffer.from(m.head + m.separator, 'latin1'), m.body]);
}
