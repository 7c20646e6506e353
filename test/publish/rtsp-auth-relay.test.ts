import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { digestResponse, parseChallenges, pickChallenge, RtspAuthorizer } from '../../shared/publish/rtsp-auth';
import { rewriteRequestUri, RtspAuthRelay, withUdpSource } from '../../shared/publish/rtsp-auth-relay';
import { waitFor } from '../watch/support/room';

// The loopback relay that answers an RTSP camera's challenge for ffmpeg, checked on the wire
// against a scripted camera: what the camera receives for each request of its client, what the
// client receives back, and the Digest answers against the RFCs' own examples.

describe('Digest and Basic answers', () => {
  test('RFC 2617 section 3.5 (qop=auth) and the RFC 2069 form (no qop, the erratum\'s value)', () => {
    const rfc = { user: 'Mufasa', realm: 'testrealm@host.com', nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', method: 'GET', uri: '/dir/index.html' };
    expect(digestResponse({ ...rfc, password: 'Circle Of Life', qop: 'auth', nc: '00000001', cnonce: '0a4f113b' })).toBe('6629fae49393a05397450978507c4ef1');
    expect(digestResponse({ ...rfc, password: 'CircleOfLife' })).toBe('1949323746fe6a43ef61f9606e7febea');
  });

  test('the Authorization header: the RFC 2617 example with its cnonce, the nonce count growing; Basic', () => {
    const [challenge] = parseChallenges(['Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"']);
    const a = new RtspAuthorizer({ user: 'Mufasa', password: 'Circle Of Life' }, challenge, () => '0a4f113b');
    const first = a.header('GET', '/dir/index.html');
    expect(first).toBe(
      'Digest username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", response="6629fae49393a05397450978507c4ef1", qop=auth, nc=00000001, cnonce="0a4f113b", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    );
    expect(a.header('GET', '/dir/index.html')).toContain('nc=00000002');
    const basic = new RtspAuthorizer({ user: 'door', password: 'p@ss:wörd' }, { scheme: 'basic', params: { realm: 'cam' } });
    expect(basic.header('DESCRIBE', 'rtsp://h/s')).toBe(`Basic ${Buffer.from('door:p@ss:wörd').toString('base64')}`);
  });

  test('challenges: several in one header or in several; Digest MD5 preferred, then Basic; others not answered', () => {
    const both = parseChallenges(['Basic realm="cam", Digest realm="cam", nonce="n1", qop="auth", stale=FALSE', 'Digest realm="x", nonce="n2", algorithm=SHA-256']);
    expect(both.map((c) => c.scheme)).toEqual(['basic', 'digest', 'digest']);
    expect(both[1].params).toEqual({ realm: 'cam', nonce: 'n1', qop: 'auth', stale: 'FALSE' });
    expect(pickChallenge(both)?.params.nonce).toBe('n1');
    expect(pickChallenge(parseChallenges(['Digest realm="x", nonce="n2", algorithm=SHA-256', 'Basic realm="b"']))?.scheme).toBe('basic');
    expect(pickChallenge(parseChallenges(['Digest realm="x", nonce="n2", algorithm=SHA-256', 'Bearer realm="b"']))).toBeUndefined();
    expect(parseChallenges(['Digest realm="a \\"quoted\\" realm", nonce=abc'])[0].params).toEqual({ realm: 'a "quoted" realm', nonce: 'abc' });
  });

  test('request URIs: the relay\'s or the camera\'s origin becomes the camera\'s, user info dropped; others kept', () => {
    const relay = 'rtsp://127.0.0.1:40001';
    const cam = 'rtsps://cam.example:322';
    expect(rewriteRequestUri('rtsp://127.0.0.1:40001/live/ch1?sub=1', relay, cam)).toBe('rtsps://cam.example:322/live/ch1?sub=1');
    expect(rewriteRequestUri('rtsp://127.0.0.1:40001', relay, cam)).toBe('rtsps://cam.example:322');
    expect(rewriteRequestUri('rtsps://CAM.example:322/live/ch1/trackID=0', relay, cam)).toBe('rtsps://cam.example:322/live/ch1/trackID=0');
    expect(rewriteRequestUri('rtsps://u:p@cam.example:322/x', relay, cam)).toBe('rtsps://cam.example:322/x');
    expect(rewriteRequestUri('*', relay, cam)).toBe('*');
    expect(rewriteRequestUri('rtsp://192.0.2.7/other', relay, cam)).toBe('rtsp://192.0.2.7/other');
  });

  test('a UDP SETUP answer without a source gets the camera\'s address as its source; TCP, multicast and ones with a source stay as they are', () => {
    const head = (transport: string): string => `RTSP/1.0 200 OK\r\nCSeq: 3\r\nTransport: ${transport}\r\nSession: 1234`;
    expect(withUdpSource(head('RTP/AVP;unicast;client_port=5000-5001;server_port=6000-6001;ssrc=1A2B'), '::ffff:192.0.2.7')).toBe(head('RTP/AVP;unicast;client_port=5000-5001;server_port=6000-6001;ssrc=1A2B;source=192.0.2.7'));
    expect(withUdpSource(head('RTP/AVP/UDP;unicast;client_port=5000-5001;'), '2001:db8::7')).toBe(head('RTP/AVP/UDP;unicast;client_port=5000-5001;source=2001:db8::7'));
    for (const kept of ['RTP/AVP/TCP;unicast;interleaved=0-1', 'RTP/AVP;unicast;client_port=5000-5001;source=192.0.2.9', 'RTP/AVP;multicast;destination=232.0.0.1;port=5000-5001']) {
      expect(withUdpSource(head(kept), '192.0.2.7')).toBe(head(kept));
    }
    expect(withUdpSource('RTSP/1.0 200 OK\r\nCSeq: 3', '192.0.2.7')).toBe('RTSP/1.0 200 OK\r\nCSeq: 3');
  });
});

/** Reads RTSP heads (and bodies by Content-Length) and interleaved frames off a socket. */
class Peer {
  readonly socket: net.Socket;
  bytes = Buffer.alloc(0);
  closed = false;

  constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => (this.bytes = Buffer.concat([this.bytes, d])));
    socket.on('error', () => undefined);
    socket.once('close', () => (this.closed = true));
  }

  /** The next whole message (head and body) as text, taken off the front. */
  async message(): Promise<string> {
    let taken = '';
    await waitFor('a message', () => {
      const end = this.bytes.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const length = Number(/^content-length:\s*(\d+)/im.exec(this.bytes.subarray(0, end).toString())?.[1] ?? 0);
      if (this.bytes.length < end + 4 + length) return false;
      taken = this.bytes.subarray(0, end + 4 + length).toString('latin1');
      this.bytes = this.bytes.subarray(end + 4 + length);
      return true;
    }, 5000);
    return taken;
  }

  /** The next `n` bytes, taken off the front. */
  async take(n: number): Promise<Buffer> {
    await waitFor(`${n} bytes`, () => this.bytes.length >= n, 5000);
    const out = this.bytes.subarray(0, n);
    this.bytes = this.bytes.subarray(n);
    return Buffer.from(out);
  }
}

/** A camera whose every answer the test writes itself. */
async function scriptedCamera(secure?: { key: Buffer; cert: Buffer }): Promise<{ port: number; peers: Peer[]; close(): Promise<void> }> {
  const peers: Peer[] = [];
  const onSocket = (s: net.Socket): void => void peers.push(new Peer(s));
  const server = secure ? tls.createServer({ key: secure.key, cert: secure.cert }, onSocket) : net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    peers,
    async close() {
      for (const p of peers) p.socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

async function connect(relay: RtspAuthRelay): Promise<Peer> {
  const port = Number(new URL(relay.url).port);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return new Peer(socket);
}

const header = (message: string, name: string): string | undefined => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(message)?.[1];
const paramsOf = (auth: string): Record<string, string> => Object.fromEntries([...auth.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1], m[2] ?? m[3]]));

describe('the relay on the wire', () => {
  let camera: Awaited<ReturnType<typeof scriptedCamera>>;
  let relay: RtspAuthRelay | undefined;

  beforeEach(async () => {
    camera = await scriptedCamera();
  });

  afterEach(async () => {
    relay?.close();
    relay = undefined;
    await camera.close();
  });

  test('URIs rewritten, the Digest challenge answered and every later request authorised, CSeq kept for the client, interleaved data untouched; one connection only', async () => {
    relay = await RtspAuthRelay.start(`rtsp://door:p%40ss-word@127.0.0.1:${camera.port}/live/ch1?sub=1`);
    expect(relay.url).toMatch(/^rtsp:\/\/127\.0\.0\.1:\d+\/live\/ch1\?sub=1$/);
    const client = await connect(relay);
    client.socket.write(`OPTIONS ${relay.url} RTSP/1.0\r\nCSeq: 1\r\nUser-Agent: Lavf61\r\n\r\n`);
    await waitFor('the camera connection', () => camera.peers.length > 0, 15_000);
    expect(camera.peers).toHaveLength(1);
    const cam = camera.peers[0];

    const options = await cam.message();
    expect(options.split('\r\n')[0]).toBe(`OPTIONS rtsp://127.0.0.1:${camera.port}/live/ch1?sub=1 RTSP/1.0`);
    expect(header(options, 'CSeq')).toBe('1');
    expect(header(options, 'User-Agent')).toBe('Lavf61');
    expect(header(options, 'Authorization')).toBeUndefined();
    cam.socket.write('RTSP/1.0 401 Unauthorized\r\nCSeq: 1\r\nWWW-Authenticate: Basic realm="cam"\r\nWWW-Authenticate: Digest realm="cam", nonce="n0nce", qop="auth"\r\nContent-Length: 5\r\n\r\nnope!');

    const again = await cam.message();
    expect(again.split('\r\n')[0]).toBe(`OPTIONS rtsp://127.0.0.1:${camera.port}/live/ch1?sub=1 RTSP/1.0`);
    expect(header(again, 'CSeq')).toBe('2');
    const auth = header(again, 'Authorization')!;
    expect(auth).toMatch(/^Digest /);
    const p = paramsOf(auth);
    expect(p).toMatchObject({ username: 'door', realm: 'cam', nonce: 'n0nce', uri: `rtsp://127.0.0.1:${camera.port}/live/ch1?sub=1`, qop: 'auth', nc: '00000001' });
    // The password percent-decoded: p@ss-word.
    expect(p.response).toBe(digestResponse({ user: 'door', password: 'p@ss-word', realm: 'cam', nonce: 'n0nce', method: 'OPTIONS', uri: p.uri, qop: 'auth', nc: '00000001', cnonce: p.cnonce }));
    cam.socket.write('RTSP/1.0 200 OK\r\nCSeq: 2\r\nPublic: OPTIONS, DESCRIBE\r\n\r\n');
    const ok = await client.message();
    expect(ok).toBe('RTSP/1.0 200 OK\r\nCSeq: 1\r\nPublic: OPTIONS, DESCRIBE\r\n\r\n');

    // A URI naming the camera (from its Content-Base) goes as it is, authorised at once.
    client.socket.write(`DESCRIBE rtsp://127.0.0.1:${camera.port}/live/ch1/ RTSP/1.0\r\nCSeq: 2\r\nAccept: application/sdp\r\n\r\n`);
    const describe = await cam.message();
    expect(describe.split('\r\n')[0]).toBe(`DESCRIBE rtsp://127.0.0.1:${camera.port}/live/ch1/ RTSP/1.0`);
    expect(paramsOf(header(describe, 'Authorization')!)).toMatchObject({ nc: '00000002', uri: `rtsp://127.0.0.1:${camera.port}/live/ch1/` });
    const sdp = 'v=0\r\ns=cam\r\n';
    cam.socket.write(`RTSP/1.0 200 OK\r\nCSeq: 3\r\nContent-Base: rtsp://127.0.0.1:${camera.port}/live/ch1/\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`);
    expect(await client.message()).toBe(`RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Base: rtsp://127.0.0.1:${camera.port}/live/ch1/\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`);

    // Interleaved RTP from the camera, cut across writes and mixed with a keepalive's answer; RTCP from the client.
    const rtp = Buffer.concat([Buffer.from([0x24, 0, 0, 6]), Buffer.from('rtp-01'), Buffer.from([0x24, 1, 0, 2]), Buffer.from('rr')]);
    client.socket.write(`GET_PARAMETER rtsp://127.0.0.1:${camera.port}/live/ch1/ RTSP/1.0\r\nCSeq: 3\r\nSession: 12345\r\n\r\n`);
    const keepalive = await cam.message();
    expect(keepalive.split('\r\n')[0]).toMatch(/^GET_PARAMETER /);
    expect(header(keepalive, 'Session')).toBe('12345');
    expect(header(keepalive, 'Authorization')).toMatch(/nc=00000003/);
    cam.socket.write(rtp.subarray(0, 3));
    await new Promise((r) => setTimeout(r, 50));
    cam.socket.write(Buffer.concat([rtp.subarray(3), Buffer.from('RTSP/1.0 200 OK\r\nCSeq: 4\r\nSession: 12345\r\n\r\n'), rtp]));
    expect(await client.take(rtp.length)).toEqual(rtp);
    expect(await client.message()).toBe('RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 12345\r\n\r\n');
    expect(await client.take(rtp.length)).toEqual(rtp);
    const rtcp = Buffer.concat([Buffer.from([0x24, 1, 0, 4]), Buffer.from([0x80, 0xc9, 0, 1])]);
    client.socket.write(rtcp);
    expect(await cam.take(rtcp.length)).toEqual(rtcp);

    // Nobody else gets in: the relay stopped listening with the first connection.
    await expect(connect(relay)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    relay.close();
    relay.close();
    await waitFor('both connections closed', () => client.closed && cam.closed, 5000);
  });

  test('only the configured stream is relayed: other URIs are answered 404 by the relay and never reach the camera; URLs the camera names for the stream are relayed', async () => {
    relay = await RtspAuthRelay.start(`rtsp://door:Scope-pa55@127.0.0.1:${camera.port}/live/ch1`);
    const client = await connect(relay);
    const cameraOrigin = `rtsp://127.0.0.1:${camera.port}`;
    let cseq = 0;
    const ask = async (method: string, uri: string): Promise<string> => {
      client.socket.write(`${method} ${uri} RTSP/1.0\r\nCSeq: ${++cseq}\r\n\r\n`);
      return client.message();
    };
    const refused = (n: number): string => `RTSP/1.0 404 Not Found\r\nCSeq: ${n}\r\nContent-Length: 0\r\n\r\n`;
    for (const uri of [`${relay.origin}/other`, `${relay.origin}/live/ch10`, `${relay.origin}/live/ch1/../../admin`, `${relay.origin}/live/ch1/%2E%2e/admin`, `${cameraOrigin}/live/ch1/..\\secret`, 'rtsp://192.0.2.7/live/ch1', 'http://127.0.0.1/live/ch1']) {
      expect(await ask('DESCRIBE', uri)).toBe(refused(cseq));
    }
    expect(await ask('GET_PARAMETER', '*')).toBe(refused(cseq));
    await waitFor('the camera connection', () => camera.peers.length > 0, 15_000);
    expect(camera.peers).toHaveLength(1);
    const cam = camera.peers[0];

    // OPTIONS * and the stream itself go through.
    client.socket.write(`OPTIONS * RTSP/1.0\r\nCSeq: ${++cseq}\r\n\r\n`);
    expect((await cam.message()).split('\r\n')[0]).toBe('OPTIONS * RTSP/1.0');
    cam.socket.write('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n');
    await client.message();
    client.socket.write(`DESCRIBE ${relay.url} RTSP/1.0\r\nCSeq: ${++cseq}\r\n\r\n`);
    expect((await cam.message()).split('\r\n')[0]).toBe(`DESCRIBE ${cameraOrigin}/live/ch1 RTSP/1.0`);
    // The camera names its stream elsewhere (its LAN address, a track on another path): those are relayed from now on.
    const sdp = 'v=0\r\na=control:*\r\nm=video 0 RTP/AVP 96\r\na=control:rtsp://10.0.0.9/h264/track9\r\n';
    cam.socket.write(`RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Base: rtsp://10.0.0.9/media/\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`);
    await client.message();
    for (const uri of ['rtsp://10.0.0.9/media/trackID=1', 'rtsp://10.0.0.9/h264/track9', `${relay.origin}/live/ch1/trackID=0`]) {
      client.socket.write(`SETUP ${uri} RTSP/1.0\r\nCSeq: ${++cseq}\r\n\r\n`);
      expect((await cam.message()).split('\r\n')[0]).toBe(`SETUP ${uri.replace(relay.origin, cameraOrigin)} RTSP/1.0`);
    }
    // Still not: a track the camera did not name, a path out of its base.
    expect(await ask('SETUP', 'rtsp://10.0.0.9/h264/track10')).toBe(refused(cseq));
    expect(await ask('SETUP', 'rtsp://10.0.0.9/media/../admin')).toBe(refused(cseq));
    await new Promise((r) => setTimeout(r, 100));
    expect(cam.bytes.length).toBe(0);
  });

  test('a wrong password: the camera\'s second 401 goes to the client with its CSeq; refused is set', async () => {
    relay = await RtspAuthRelay.start(`rtsp://door:Wrong-pass@127.0.0.1:${camera.port}/s`);
    const client = await connect(relay);
    client.socket.write(`DESCRIBE ${relay.url} RTSP/1.0\r\nCSeq: 7\r\n\r\n`);
    await waitFor('the camera connection', () => camera.peers.length > 0, 15_000);
    expect(camera.peers).toHaveLength(1);
    const cam = camera.peers[0];
    await cam.message();
    cam.socket.write('RTSP/1.0 401 Unauthorized\r\nCSeq: 1\r\nWWW-Authenticate: Basic realm="cam"\r\n\r\n');
    const again = await cam.message();
    expect(header(again, 'Authorization')).toBe(`Basic ${Buffer.from('door:Wrong-pass').toString('base64')}`);
    cam.socket.write('RTSP/1.0 401 Unauthorized\r\nCSeq: 2\r\nWWW-Authenticate: Basic realm="cam"\r\n\r\n');
    expect(await client.message()).toBe('RTSP/1.0 401 Unauthorized\r\nCSeq: 7\r\nWWW-Authenticate: Basic realm="cam"\r\n\r\n');
    expect(relay.refused).toBe(true);
    expect(relay.failure).toBeUndefined();
  });

  test('a camera that cannot be reached: the client\'s connection is closed, the reason names the address and no credentials', async () => {
    const port = camera.port;
    await camera.close();
    relay = await RtspAuthRelay.start(`rtsp://door:Secret-9876@127.0.0.1:${port}/s`);
    const client = await connect(relay);
    client.socket.write(`OPTIONS ${relay.url} RTSP/1.0\r\nCSeq: 1\r\n\r\n`);
    await waitFor('closed', () => client.closed, 5000);
    expect(relay.failure).toBe(`cannot reach the camera at 127.0.0.1:${port} (ECONNREFUSED)`);
    camera = await scriptedCamera();
  });

  test('a message over the limits ends the connection', async () => {
    relay = await RtspAuthRelay.start(`rtsp://door:pw12@127.0.0.1:${camera.port}/s`);
    const client = await connect(relay);
    client.socket.write(`DESCRIBE ${relay.url} RTSP/1.0\r\nCSeq: 1\r\nContent-Length: 99999999\r\n\r\n`);
    await waitFor('closed', () => client.closed, 5000);
    expect(relay.failure).toMatch(/RTSP message body/);
  });
});

describe('rtsps://', () => {
  let dir: string;
  let key: Buffer;
  let cert: Buffer;

  beforeAll(() => {
    // A self-signed certificate, as cameras have.
    dir = mkdtempSync(path.join(os.tmpdir(), 'rtsps-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=camera.test'], { stdio: 'ignore' });
    key = readFileSync(path.join(dir, 'key.pem'));
    cert = readFileSync(path.join(dir, 'cert.pem'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the relay speaks TLS to the camera and plain RTSP to its client; URIs name the rtsps:// camera', async () => {
    const camera = await scriptedCamera({ key, cert });
    const relay = await RtspAuthRelay.start(`rtsps://door:tls-Pa55@127.0.0.1:${camera.port}/s`);
    try {
      expect(relay.url.startsWith('rtsp://127.0.0.1:')).toBe(true);
      const client = await connect(relay);
      client.socket.write(`OPTIONS ${relay.url} RTSP/1.0\r\nCSeq: 1\r\n\r\n`);
      await waitFor('the camera connection', () => camera.peers.length > 0, 15_000);
      expect(camera.peers).toHaveLength(1);
      const request = await camera.peers[0].message();
      expect(request.split('\r\n')[0]).toBe(`OPTIONS rtsps://127.0.0.1:${camera.port}/s RTSP/1.0`);
      camera.peers[0].socket.write('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n');
      expect(await client.message()).toBe('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n');
    } finally {
      relay.close();
      await camera.close();
    }
  });
});
