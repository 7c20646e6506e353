import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { CameraPublisher, liveFfmpegChildren, type CameraStatus } from '../../shared/publish';
import { StreamingClient } from '../../shared/streaming';
import { runFfmpeg } from '../streaming/support/ffmpeg';
import { startRtspCameraServer, type RtspCameraOptions, type RtspCameraServer } from '../support/rtsp-camera';
import { waitFor } from '../watch/support/room';

// An RTSP camera behind a password (Basic, Digest with and without qop) published into a sandbox
// room: while it is live, no process on the machine has the password on its command line, and
// the ffmpeg children's environment holds neither the password nor the variables the command
// line tool reads secrets from. A wrong password is still reported as refused; UDP still works.

const SECRET_VARS = { VS_CLIENT_SECRET: 'env-Secret-4711', VS_SOURCE: 'rtsp://door:env-Src-Pass-99@192.0.2.1/s' };
let sandbox: RunningSandbox;
let dispatcher: Agent;
let streaming: StreamingClient;
let clip: Buffer;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0, streaming: { countDelayMs: 0 } });
  dispatcher = new Agent();
  streaming = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', dispatcher });
  // Baseline 320x240 at 10 fps, an IDR a second, one slice per picture (one encoder thread).
  const r = await runFfmpeg([
    '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-frames:v', '30',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
    '-threads', '1', '-g', '10', '-f', 'h264', 'pipe:1',
  ]);
  expect(r.code).toBe(0);
  clip = r.stdout;
  // As the command line tool's user has them: the children must not inherit these.
  for (const [k, v] of Object.entries(SECRET_VARS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
}, 60_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await streaming?.close();
  await dispatcher?.close();
  await sandbox?.stop();
});

/** Command lines of every process on the machine that holds `text` (those this user may read). */
function commandLinesWith(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (args.includes(text)) found.push(`${pid}: ${args.split('\0').join(' ')}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The environment of each ffmpeg child of this process. */
function ffmpegChildEnvironments(): { pid: string; env: string }[] {
  const out: { pid: string; env: string }[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      // pid (comm) state ppid ...: comm may hold spaces, so fields are read after its closing parenthesis.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && comm.startsWith('ffmpeg')) out.push({ pid, env: readFileSync(`/proc/${pid}/environ`, 'latin1') });
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

async function camera(o: Partial<RtspCameraOptions> & { password: string }): Promise<{ server: RtspCameraServer; url: (password?: string) => string }> {
  const server = await startRtspCameraServer({ clip, fps: 10, user: 'door', path: '/stream1', ...o });
  const encoded = encodeURIComponent(o.password).replace(/%40/g, '@');
  return { server, url: (password = encoded) => `rtsp://door:${password}@127.0.0.1:${server.port}/stream1` };
}

interface Run {
  roomId: string;
  cam: CameraPublisher;
  statuses: CameraStatus[];
  errors: Error[];
}

async function publish(source: string, extra: { codec?: 'H264' | 'VP8'; transport?: 'tcp' | 'udp'; maxRetrySeconds?: number } = {}): Promise<Run> {
  const room = await streaming.createRoom();
  const cam = new CameraPublisher({ source, codec: extra.codec ?? 'H264', transport: extra.transport, getTicket: streaming.ticketSource(room.id, 'up'), loopbackOnly: true, stallSeconds: 5, maxRetrySeconds: extra.maxRetrySeconds ?? 2 });
  const statuses: CameraStatus[] = [];
  const errors: Error[] = [];
  cam.on('status', (s) => statuses.push(s));
  cam.on('error', (e) => errors.push(e));
  await cam.start();
  return { roomId: room.id, cam, statuses, errors };
}

/** Live in the room: the publisher says so, frames keep coming, and the room counts its upload. */
async function expectLiveInRoom(run: Run): Promise<void> {
  await waitFor('live', () => run.cam.status?.state === 'live', 30_000);
  const frames = run.cam.stats!.frames;
  await waitFor('more frames', () => run.cam.stats!.frames >= frames + 10, 20_000);
  let upCount = 0;
  const deadline = Date.now() + 10_000;
  while (upCount < 1 && Date.now() < deadline) {
    upCount = (await streaming.getRoom(run.roomId)).up_count;
    if (upCount < 1) await new Promise((r) => setTimeout(r, 200));
  }
  expect(upCount).toBeGreaterThanOrEqual(1);
}

/** Nothing on any command line or in the children's environments holds a secret. */
function expectNoSecretsExposed(password: string, url: string): void {
  expect(commandLinesWith(password)).toEqual([]);
  expect(commandLinesWith(encodeURIComponent(password))).toEqual([]);
  expect(commandLinesWith(url)).toEqual([]);
  const children = ffmpegChildEnvironments();
  expect(children.length).toBeGreaterThanOrEqual(1);
  for (const { env } of children) {
    expect(env).not.toContain('VS_CLIENT_SECRET');
    expect(env).not.toContain('VS_SOURCE');
    expect(env).not.toContain(SECRET_VARS.VS_CLIENT_SECRET);
    expect(env).not.toContain(password);
    // It still has what it needs to run.
    expect(env).toMatch(/(^|\0)PATH=/);
  }
}

const cases: { name: string; auth: RtspCameraOptions['auth']; password: string; codec: 'H264' | 'VP8' }[] = [
  { name: 'Basic, relayed as it is', auth: 'basic', password: 'Basic-Pa55-word', codec: 'H264' },
  { name: 'Digest with qop=auth, a raw @ in the password, encoded to VP8', auth: 'digest', password: 'CrEt@-991-digest', codec: 'VP8' },
  { name: 'Digest without qop (RFC 2069 form)', auth: 'digest-no-qop', password: 'No-Qop-pa55', codec: 'H264' },
];

test.each(cases)('an RTSP camera with a password ($name): live in the room, the password on no command line, the children\'s environment clean', async ({ auth, password, codec }) => {
  const { server, url } = await camera({ auth, password });
  const source = url();
  let run: Run | undefined;
  try {
    run = await publish(source, { codec });
    await expectLiveInRoom(run);
    expectNoSecretsExposed(password, source);
    expect(run.cam.status).toMatchObject({ state: 'live', codec, source: expect.stringContaining('rtsp://door:***@127.0.0.1') });
    // The camera saw its own URL in every request, and the credentials its scheme asks for.
    const requests = server.requests();
    const base = `rtsp://127.0.0.1:${server.port}/stream1`;
    expect(requests.filter((r) => !r.uri.startsWith(base)).map((r) => `${r.method} ${r.uri}`)).toEqual([]);
    const ok = requests.filter((r) => r.status === 200 && r.method !== 'OPTIONS');
    expect(ok.map((r) => r.method)).toEqual(expect.arrayContaining(['DESCRIBE', 'SETUP', 'PLAY']));
    for (const r of ok) expect(r.authorization).toMatch(auth === 'basic' ? /^Basic / : /^Digest /);
    if (auth === 'digest') expect(ok.every((r) => /qop=auth/.test(r.authorization!))).toBe(true);
  } finally {
    await run?.cam.stop();
    await server.stop();
  }
  const shown = JSON.stringify(run!.statuses) + JSON.stringify(run!.errors.map((e) => e.message));
  expect(shown).not.toContain(password);
  expect(liveFfmpegChildren()).toBe(0);
  expect(commandLinesWith(password)).toEqual([]);
}, 90_000);

test.each([
  { auth: 'basic' as const, password: 'Right-Basic-1' },
  { auth: 'digest' as const, password: 'Right-Digest-1' },
])('a wrong password ($auth) is reported once as refused and retried; it is shown nowhere', async ({ auth, password }) => {
  const { server, url } = await camera({ auth, password });
  const wrong = 'Wrong-Pa55-xyz';
  let run: Run | undefined;
  try {
    run = await publish(url(wrong), { maxRetrySeconds: 1 });
    await waitFor('refused', () => run!.cam.status?.state === 'camera_lost', 20_000);
    expect(run.cam.status!.reason).toMatch(/refused the credentials/);
    expect(run.cam.status!.reason).toContain('127.0.0.1');
    await waitFor('a second refusal', () => run!.statuses.filter((s) => s.state === 'camera_lost').length >= 2, 20_000);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatchObject({ name: 'PublishError', code: 'camera_refused' });
    // The relay answered the challenge once per attempt; the camera's second 401 went to ffmpeg.
    const requests = server.requests();
    expect(requests.filter((r) => r.status === 401 && r.authorization).length).toBeGreaterThanOrEqual(2);
    expect(requests.some((r) => r.status === 200 && r.method === 'DESCRIBE')).toBe(false);
  } finally {
    await run?.cam.stop();
    await server.stop();
  }
  const shown = JSON.stringify(run!.statuses) + JSON.stringify(run!.errors.map((e) => e.message));
  expect(shown).not.toContain(wrong);
  expect(liveFfmpegChildren()).toBe(0);
}, 60_000);

test('transport udp: the control connection goes through the relay, RTP comes straight from the camera over UDP', async () => {
  const password = 'Udp-Pa55-word';
  const { server, url } = await camera({ auth: 'digest', password, udp: true });
  const source = url();
  let run: Run | undefined;
  try {
    run = await publish(source, { transport: 'udp' });
    await expectLiveInRoom(run);
    expectNoSecretsExposed(password, source);
    const setup = server.requests().filter((r) => r.method === 'SETUP' && r.status === 200);
    expect(setup.length).toBeGreaterThanOrEqual(1);
    // Every session the camera set up sends RTP as datagrams: the live frames came over UDP.
    for (const s of setup) expect(s.transport).toMatch(/^RTP\/AVP(\/UDP)?;unicast;client_port=\d+/);
  } finally {
    await run?.cam.stop();
    await server.stop();
  }
  expect(liveFfmpegChildren()).toBe(0);
}, 90_000);
