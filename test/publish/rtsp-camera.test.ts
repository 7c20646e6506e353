import net from 'node:net';
import { runFfmpeg } from '../streaming/support/ffmpeg';
import { nalUnits, parseH264, payloadsOf } from '../support/h264-rtp';
import { startRtspCameraServer, type RtspCameraServer } from '../support/rtsp-camera';

// The test RTSP camera the camera tests rely on, checked on the wire (RFC 2326, RFC 6184) and with
// the dev ffmpeg reading it as the camera publisher does.

const AUTH = `Basic ${Buffer.from('door:Pa55-word').toString('base64')}`;
let clip: Buffer;
let camera: RtspCameraServer;

beforeAll(async () => {
  // Baseline 320x240 at 10 fps, an IDR every 10 pictures, one slice each (one encoder thread): 3 s, looped by the camera.
  const r = await runFfmpeg([
    '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-frames:v', '30',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
    '-threads', '1', '-g', '10', '-f', 'h264', 'pipe:1',
  ]);
  expect(r.code).toBe(0);
  clip = r.stdout;
  camera = await startRtspCameraServer({ clip, fps: 10, user: 'door', password: 'Pa55-word' });
}, 60_000);

afterAll(async () => {
  await camera?.stop();
});

interface Reply {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** A raw RTSP client: requests, their replies, and the interleaved packets that come between. */
class Client {
  readonly socket: net.Socket;
  readonly packets: { channel: number; data: Buffer }[] = [];
  #buffer = Buffer.alloc(0);
  #waiting: ((r: Reply) => void)[] = [];
  #cseq = 0;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => this.#read(d));
    this.socket.on('error', () => undefined);
  }

  request(method: string, uri: string, headers: Record<string, string> = {}): Promise<Reply> {
    const lines = [`${method} ${uri} RTSP/1.0`, `CSeq: ${++this.#cseq}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #read(d: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, d]);
    for (;;) {
      if (this.#buffer[0] === 0x24) {
        if (this.#buffer.length < 4) return;
        const end = 4 + this.#buffer.readUInt16BE(2);
        if (this.#buffer.length < end) return;
        this.packets.push({ channel: this.#buffer[1], data: Buffer.from(this.#buffer.subarray(4, end)) });
        this.#buffer = this.#buffer.subarray(end);
        continue;
      }
      const headEnd = this.#buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const lines = this.#buffer.subarray(0, headEnd).toString().split('\r\n');
      const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
      const length = Number(headers.get('content-length') ?? 0);
      if (this.#buffer.length < headEnd + 4 + length) return;
      const body = this.#buffer.subarray(headEnd + 4, headEnd + 4 + length).toString();
      this.#buffer = this.#buffer.subarray(headEnd + 4 + length);
      this.#waiting.shift()?.({ status: Number(lines[0].split(' ')[1]), headers, body });
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('FU-A: a NAL unit over the size limit is cut into fragments that join back into it; smaller ones go as they are', () => {
  const nal = Buffer.concat([Buffer.from([0x65]), Buffer.alloc(3000, 7)]);
  const parts = payloadsOf(nal, 1200);
  expect(parts.length).toBe(3);
  expect(parts.every((p) => p.length <= 1200 && (p[0] & 0x1f) === 28 && (p[0] & 0x60) === 0x60 && (p[1] & 0x1f) === 5)).toBe(true);
  expect(parts.map((p) => p[1] & 0xc0)).toEqual([0x80, 0, 0x40]);
  expect(Buffer.concat([Buffer.from([0x65]), ...parts.map((p) => p.subarray(2))])).toEqual(nal);
  expect(payloadsOf(nal.subarray(0, 1000), 1200)).toEqual([nal.subarray(0, 1000)]);
  const parsed = parseH264(clip);
  expect(parsed.pictures.length).toBe(30);
  expect(parsed.pictures.filter((p) => p.idr).length).toBe(3);
  expect(parsed.pictures.every((p) => p.slices === 1)).toBe(true);
});

test('the RTSP exchange: CSeq echoed, Basic auth on DESCRIBE/SETUP/PLAY, SDP, UDP refused, RTP interleaved on the asked channels', async () => {
  const c = new Client(camera.port);
  try {
    const options = await c.request('OPTIONS', `${camera.url}`);
    expect(options.status).toBe(200);
    expect(options.headers.get('cseq')).toBe('1');
    expect(options.headers.get('public')).toMatch(/DESCRIBE.*SETUP.*PLAY.*TEARDOWN.*GET_PARAMETER.*SET_PARAMETER/);

    const refused = await c.request('DESCRIBE', camera.url, { Accept: 'application/sdp' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"$/);
    const wrong = await c.request('DESCRIBE', camera.url, { Authorization: `Basic ${Buffer.from('door:nope').toString('base64')}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('cseq')).toBe('3');

    const describe = await c.request('DESCRIBE', camera.url, { Authorization: AUTH });
    expect(describe.status).toBe(200);
    expect(describe.headers.get('content-type')).toBe('application/sdp');
    const base = describe.headers.get('content-base')!;
    expect(base).toBe(`${camera.url}/`);
    const sdp = describe.body;
    expect(sdp).toContain('m=video 0 RTP/AVP 96');
    expect(sdp).toContain('a=rtpmap:96 H264/90000');
    const { sps, pps } = parseH264(clip);
    expect(sdp).toContain(`a=fmtp:96 packetization-mode=1;profile-level-id=${sps.subarray(1, 4).toString('hex').toUpperCase()};sprop-parameter-sets=${sps.toString('base64')},${pps.toString('base64')}`);
    const control = /m=video[\s\S]*a=control:(\S+)/.exec(sdp)![1];

    expect((await c.request('SETUP', `${base}${control}`, { Authorization: AUTH, Transport: 'RTP/AVP/UDP;unicast;client_port=5000-5001' })).status).toBe(461);
    expect((await c.request('SETUP', `${base}${control}`, { Transport: 'RTP/AVP/TCP;unicast;interleaved=4-5' })).status).toBe(401);
    const setup = await c.request('SETUP', `${base}${control}`, { Authorization: AUTH, Transport: 'RTP/AVP/TCP;unicast;interleaved=4-5' });
    expect(setup.status).toBe(200);
    expect(setup.headers.get('transport')).toMatch(/^RTP\/AVP\/TCP;unicast;interleaved=4-5/);
    const session = setup.headers.get('session')!.split(';')[0];
    expect(session).toBeTruthy();

    expect((await c.request('PLAY', base, { Session: session })).status).toBe(401);
    expect((await c.request('PLAY', base, { Authorization: AUTH, Session: 'not-this-one' })).status).toBe(454);
    const play = await c.request('PLAY', base, { Authorization: AUTH, Session: session, Range: 'npt=0.000-' });
    expect(play.status).toBe(200);
    expect(play.headers.get('session')!.split(';')[0]).toBe(session);
    const started = performance.now();
    await sleep(1500);
    const keepAlive = await c.request('GET_PARAMETER', base, { Session: session });
    expect(keepAlive.status).toBe(200);
    expect((await c.request('SET_PARAMETER', base, { Session: session })).status).toBe(200);
    // 4 s in all: the clip is about 3 s, so it has looped, with a second to spare on a loaded machine.
    await sleep(2500);
    const elapsed = performance.now() - started;
    expect((await c.request('TEARDOWN', base, { Session: session })).status).toBe(200);
    const count = c.packets.length;
    await sleep(400);
    expect(c.packets.length).toBe(count);

    // What came: RTP version 2, payload type 96 on channel 4, sequence numbers in a row, a
    // picture every 9000 ticks, the marker on a picture's last packet, SPS and PPS before each IDR.
    const rtp = c.packets.filter((p) => p.channel === 4).map((p) => p.data);
    expect(rtp.length).toBe(c.packets.length);
    expect(rtp.every((p) => p[0] >> 6 === 2 && (p[1] & 0x7f) === 96)).toBe(true);
    const seqs = rtp.map((p) => p.readUInt16BE(2));
    expect(seqs.every((s, i) => i === 0 || s === ((seqs[i - 1] + 1) & 0xffff))).toBe(true);
    const pictures: { timestamp: number; nals: Buffer[] }[] = [];
    let fu: Buffer[] = [];
    let current: { timestamp: number; nals: Buffer[] } | undefined;
    for (const p of rtp) {
      const timestamp = p.readUInt32BE(4);
      const payload = p.subarray(12);
      current ??= { timestamp, nals: [] };
      expect(timestamp).toBe(current.timestamp);
      if ((payload[0] & 0x1f) === 28) {
        fu.push(payload.subarray(2));
        if (payload[1] & 0x40) {
          current.nals.push(Buffer.concat([Buffer.from([(payload[0] & 0xe0) | (payload[1] & 0x1f)]), ...fu]));
          fu = [];
        }
      } else current.nals.push(payload);
      if (p[1] & 0x80) {
        pictures.push(current);
        current = undefined;
      }
    }
    // Paced in real time: about 10 pictures a second.
    expect(pictures.length).toBeGreaterThanOrEqual(Math.floor((elapsed / 1000) * 10) - 2);
    expect(pictures.length).toBeLessThanOrEqual(Math.ceil((elapsed / 1000) * 10) + 2);
    expect(pictures.every((p, i) => i === 0 || ((p.timestamp - pictures[i - 1].timestamp) >>> 0) === 9000)).toBe(true);
    const idrs = pictures.filter((p) => p.nals.some((n) => (n[0] & 0x1f) === 5));
    expect(idrs.length).toBeGreaterThanOrEqual(3);
    for (const p of idrs) expect(p.nals.slice(0, 2).map((n) => n[0] & 0x1f)).toEqual([7, 8]);
    // The NAL units are the clip's, in order, looped (SPS/PPS of the stream aside).
    const source = nalUnits(clip).filter((n) => ![7, 8].includes(n[0] & 0x1f));
    const sent = pictures.flatMap((p) => p.nals).filter((n) => ![7, 8].includes(n[0] & 0x1f));
    expect(sent.length).toBeGreaterThan(source.length);
    sent.forEach((n, i) => expect(n.equals(source[i % source.length])).toBe(true));
  } finally {
    c.socket.destroy();
  }
}, 30_000);

test('the dev ffmpeg reads it over TCP with the password, two at once, and every picture decodes; stop() cuts them, start() serves again', async () => {
  const url = camera.url.replace('rtsp://', 'rtsp://door:Pa55-word@');
  const read = (seconds: number): Promise<{ code: number; stdout: Buffer; stderr: string }> =>
    runFfmpeg(['-v', 'error', '-rtsp_transport', 'tcp', '-i', url, '-t', String(seconds), '-an', '-c:v', 'copy', '-f', 'h264', 'pipe:1']);
  const decoded = async (h264: Buffer): Promise<number> => {
    const r = await runFfmpeg(['-v', 'error', '-f', 'h264', '-i', 'pipe:0', '-f', 'framecrc', 'pipe:1'], h264);
    expect(r.stderr).toBe('');
    return r.stdout.toString().split('\n').filter((l) => l && !l.startsWith('#')).length;
  };
  const [a, b] = await Promise.all([read(4), read(4)]);
  for (const r of [a, b]) {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await decoded(r.stdout)).toBeGreaterThanOrEqual(35);
  }
  await until('both readers gone', () => camera.connections() === 0);

  // A reader cut off by a power cut fails; the camera answers again on the same port once started.
  const cut = read(30);
  await until('the reader connected', () => camera.connections() === 1);
  await sleep(2000);
  await camera.stop();
  const r = await cut;
  expect(camera.connections()).toBe(0);
  expect(await decoded(r.stdout)).toBeGreaterThan(5);
  await camera.start();
  const again = await read(2);
  expect(again.code).toBe(0);
  expect(await decoded(again.stdout)).toBeGreaterThanOrEqual(15);
}, 60_000);
