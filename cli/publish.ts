import { readFile } from 'node:fs/promises';
import type { ConnectionLease } from '../shared/connection';
import { InputError } from '../shared/errors';
import type { CameraPublisher, CameraStatus } from '../shared/publish';
import { checkCamera, type CameraSettings } from '../shared/publish/camera-settings';
import { maskUrl, urlSecrets } from '../shared/publish/camera-url';
import { CREDENTIAL_FLAGS, DEFAULT_JOIN_ATTEMPTS, DURATION_FLAG, HELP_FLAG, JOIN_ATTEMPTS_FLAG, LOOPBACK_FLAG, credentialsOf, durationOf, helpPage, joinAttemptsOf, numberFlag, parseFlags, type Flag } from './flags';
import { describe as describeError, refuseInput } from './errors';
import type { CliIo } from './io';

/** The flags of `vision-streaming publish`, in the order --help lists them. */
export const FLAGS: readonly Flag[] = [
  ...CREDENTIAL_FLAGS,
  { name: 'room', env: 'VS_ROOM', value: 'ID', help: 'room to publish into (this or --create-room)' },
  { name: 'create-room', env: 'VS_CREATE_ROOM', value: 'NAME', help: 'create a room and publish into it; NAME is shown in the output only (rooms have no names in the API)' },
  { name: 'source', env: 'VS_SOURCE', value: 'URL|DEVICE|FILE', multiple: true, help: 'a camera: rtsp(s)://, http(s):// (MJPEG stream or JPEG/PNG snapshot), /dev/videoN, or a video file; repeat for several cameras' },
  { name: 'config', env: 'VS_CONFIG', value: 'FILE', help: 'JSON file: {"cameras": [{"source": "...", "codec"?, "bitRate"?, "fps"?, "size"?, "transport"?, "keyFramePhases"?, "name"?}]}' },
  { name: 'codec', env: 'VS_CODEC', value: 'VP8|H264', help: 'VP8 (default: encoded, what watch reads by default) or H264 (an H.264 RTSP camera relayed without re-encoding; watch with --codec H264)' },
  { name: 'bit-rate', env: 'VS_BIT_RATE', value: 'KBPS', help: 'bit-rate cap of encoded video (50..20000; default 800)' },
  { name: 'fps', env: 'VS_FPS', value: 'N', help: 'frame rate of encoded video (1..60; default 10)' },
  { name: 'size', env: 'VS_SIZE', value: 'WxH', help: 'size of encoded video, e.g. 640x480 (default: the camera\'s; pictures: 640x480)' },
  { name: 'transport', env: 'VS_TRANSPORT', value: 'tcp|udp', help: 'RTSP transport (default tcp)' },
  { name: 'reencode', env: 'VS_REENCODE', help: 'with --codec H264: encode even an H.264 camera (e.g. a High-profile camera for watchers without ffmpeg)' },
  { name: 'stall', env: 'VS_STALL', value: 'SECONDS', help: 'no frame for this long: reconnect the camera (1..120; default 5)' },
  { name: 'snapshot-fps', env: 'VS_SNAPSHOT_FPS', value: 'N', help: 'pictures per second read from a snapshot URL (default 2)' },
  { name: 'key-frame-phases', env: 'VS_KEY_FRAME_PHASES', value: 'N', help: 'encodings run side by side with staggered key frames: a viewer joining waits at most 1/N s for its first picture instead of up to 1 s (1..4; default 2; each one more costs an encoder\'s CPU)' },
  JOIN_ATTEMPTS_FLAG,
  DURATION_FLAG,
  LOOPBACK_FLAG,
  HELP_FLAG,
];

/** The help text of `vision-streaming publish`. */
export function publishHelp(): string {
  return helpPage({
    command: 'publish',
    usage: '--room ID --source URL [--source URL ...] [options]',
    about: [
      'Publishes cameras into a live room, each as its own stream, and keeps them up: a camera that',
      'refuses, drops or stalls is retried (backoff up to 30 s), a lost room session is rejoined.',
      'Prints one JSON line per change of a camera\'s state on stdout:',
      '  room    {event, room, name?}     (with --create-room)',
      '  status  {event, camera, state, reason?, stream_id, source, codec, relayed, retry_in_ms?, time}',
      '          state: connecting | live | camera_lost | rejoining | stopped; stream_id is the camera\'s',
      '          client_id in the room (name it in watch --labels). Passwords in URLs show as ***.',
      'Diagnostics go to stderr. Ctrl-C, SIGTERM or --duration stops it within 5 s, also while a camera still',
      'joins or rejoins, and leaves no ffmpeg behind (exit 0). Exit 2: bad options; 1: could not start, e.g. a room',
      `that cannot be joined: ${DEFAULT_JOIN_ATTEMPTS} attempts per camera (--join-attempts), waits doubling from 0.5 s (about 30 s while`,
      'tickets are refused).',
      'Needs an ffmpeg binary (FFMPEG_PATH, PATH, or the @ffmpeg-installer/linux-x64 package).',
      '',
      'Examples:',
      '  vision-streaming publish --room R --source rtsp://user:pass@192.0.2.10/stream1',
      '  vision-streaming publish --room R --codec H264 --source rtsp://user:pass@192.0.2.10/stream1   (relayed as it is)',
      '  vision-streaming publish --room R --source http://192.0.2.11:81/stream          (ESP32-CAM MJPEG)',
      '  vision-streaming publish --room R --source http://192.0.2.12/snapshot.jpg --snapshot-fps 1',
      '  vision-streaming publish --room R --source /dev/video0 --size 640x480',
    ],
    flags: FLAGS,
    environment: {
      FFMPEG_PATH: 'the ffmpeg binary to use',
    },
  });
}

/** What a stop asked for (a signal, the duration) resolves with in the races of publish(). */
const STOP: unique symbol = Symbol('stop');

/** One camera of the command: its settings and a display name. */
interface CameraEntry {
  name?: string;
  options: CameraSettings;
}

interface PublishSettings {
  help: boolean;
  credentials: ReturnType<typeof credentialsOf>;
  room?: string;
  createRoom?: string;
  cameras: CameraEntry[];
  loopback: boolean;
  durationMs?: number;
  /** Attempts at each camera's first join before the command gives up. */
  joinAttempts: number;
}

/** Runs `vision-streaming publish <args>`; resolves with the exit code. */
export async function publishMain(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let settings: PublishSettings;
  try {
    settings = await readSettings(args, env);
  } catch (err) {
    return refuseInput('publish', err, FLAGS, io, maskUrl);
  }
  if (settings.help) {
    io.stdout(publishHelp());
    return 0;
  }
  if (args.some((a) => urlSecrets(a).length > 0)) {
    io.stderr('vision-streaming publish: a password given on the command line can be read by other local users until the command starts (ps); give it in VS_SOURCE or a --config file');
  }
  return publish(settings, io);
}

async function readSettings(args: readonly string[], env: NodeJS.ProcessEnv): Promise<PublishSettings> {
  const flags = parseFlags(args, FLAGS, env);
  if (flags.on('help')) return { help: true } as PublishSettings;
  const { get, on } = flags;
  const credentials = credentialsOf(flags, env);
  const room = get('room');
  const createRoom = get('create-room');
  if (room && createRoom) throw new InputError('invalid_input', 'give --room or --create-room, not both', { field: 'room', limit: 'one of them' });
  if (!room && !createRoom) throw new InputError('invalid_input', '--room ID or --create-room NAME is required (or VS_ROOM)', { field: 'room', limit: 'a room id' });
  const common: Omit<CameraSettings, 'source'> = {
    codec: choice(get('codec')?.toUpperCase(), 'codec', ['VP8', 'H264']) as 'VP8' | 'H264' | undefined,
    bitRateKbps: int(get('bit-rate'), 'bit-rate'),
    fps: int(get('fps'), 'fps'),
    ...size(get('size'), 'size'),
    transport: choice(get('transport')?.toLowerCase(), 'transport', ['tcp', 'udp']) as 'tcp' | 'udp' | undefined,
    reencode: on('reencode') || undefined,
    stallSeconds: numberFlag(get('stall'), 'stall'),
    snapshotFps: numberFlag(get('snapshot-fps'), 'snapshot-fps'),
    keyFramePhases: int(get('key-frame-phases'), 'key-frame-phases'),
  };
  const sources = flags.all('source');
  const cameras: CameraEntry[] = sources.map((source) => ({ options: { ...common, source } }));
  const config = get('config');
  if (config) cameras.push(...(await readConfig(config, common)));
  if (cameras.length === 0) throw new InputError('invalid_input', '--source URL|DEVICE|FILE (or --config FILE) is required', { field: 'source', limit: 'at least one camera' });
  // Every camera is checked before anything starts: a bad one is refused with its flag named.
  cameras.forEach((c, i) => {
    if (!c.options.source || !String(c.options.source).trim()) throw new InputError('invalid_input', `camera ${i + 1}: --source is empty`, { field: 'source', limit: 'a camera URL, device or file' });
    try {
      checkCamera(c.options);
    } catch (err) {
      // The camera is named; the field keeps its flag, which the refusal puts first.
      if (err instanceof InputError) throw new InputError('invalid_input', `camera ${i + 1}: ${err.message}`, { field: err.field, limit: err.limit });
      throw err;
    }
  });
  return {
    help: false,
    credentials,
    room,
    createRoom,
    cameras,
    loopback: on('loopback'),
    durationMs: durationOf(flags),
    joinAttempts: joinAttemptsOf(flags),
  };
}

async function readConfig(file: string, common: Omit<CameraSettings, 'source'>): Promise<CameraEntry[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError('invalid_input', code ? `cannot read the config file ${file}: ${code}` : `the config file ${file} is not JSON`, { field: 'config', limit: 'a JSON file' });
  }
  const list = (doc as { cameras?: unknown })?.cameras;
  if (!Array.isArray(list) || list.length === 0) throw new InputError('invalid_input', `the config file ${file} needs "cameras": [{"source": "..."}, ...]`, { field: 'config', limit: 'a non-empty cameras list' });
  return list.map((c: Record<string, unknown>, i) => {
    if (!c || typeof c !== 'object') throw new InputError('invalid_input', `cameras[${i}] in ${file} is not an object`, { field: 'config', limit: 'an object' });
    const s = (k: string): string | undefined => (c[k] === undefined ? undefined : String(c[k]));
    return {
      name: s('name'),
      options: {
        ...common,
        source: s('source'),
        ...(c.codec !== undefined ? { codec: choice(s('codec')!.toUpperCase(), 'codec', ['VP8', 'H264']) as 'VP8' | 'H264' } : {}),
        ...(c.bitRate !== undefined ? { bitRateKbps: int(s('bitRate'), 'bit-rate') } : {}),
        ...(c.fps !== undefined ? { fps: int(s('fps'), 'fps') } : {}),
        ...(c.size !== undefined ? size(s('size'), 'size') : {}),
        ...(c.transport !== undefined ? { transport: choice(s('transport')!.toLowerCase(), 'transport', ['tcp', 'udp']) as 'tcp' | 'udp' } : {}),
        ...(c.reencode !== undefined ? { reencode: c.reencode === true } : {}),
        ...(c.keyFramePhases !== undefined ? { keyFramePhases: int(s('keyFramePhases'), 'key-frame-phases') } : {}),
      },
    };
  });
}

async function publish(s: PublishSettings, io: CliIo): Promise<number> {
  // Loaded only now, so that --help and a bad flag answer without loading WebRTC and HTTP.
  const [{ acquireConnection }, { CameraPublisher }] = await Promise.all([import('../shared/connection'), import('../shared/publish/camera')]);
  let lease: ConnectionLease;
  try {
    lease = acquireConnection({ ...s.credentials, owner: 'the command' });
  } catch (err) {
    io.stderr(`vision-streaming publish: ${describe(err)}`);
    return 2;
  }
  // The duration and a signal count from the start: they end the command whatever it is waiting
  // for (a room being created, cameras joining or backing off), not only once every camera is up.
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<void>((resolve) => {
    if (s.durationMs) timer = setTimeout(resolve, s.durationMs);
  });
  const stopAsked = Promise.race([io.interrupted, timeUp]).then((): typeof STOP => STOP);
  const cameras: CameraPublisher[] = [];
  try {
    const streaming = lease.streaming();
    // --loopback forces it; otherwise each camera's session keeps to loopback by itself when the
    // room's signaling address is on this machine (the sandbox).
    const loopbackOnly = s.loopback || undefined;
    let roomId = s.room;
    if (!roomId) {
      const created = await Promise.race([streaming.createRoom().then((room) => room.id, (err: unknown) => ({ err })), stopAsked]);
      if (created === STOP) return 0;
      if (typeof created !== 'string') {
        io.stderr(`vision-streaming publish: could not create a room: ${describe(created.err)}`);
        return 1;
      }
      roomId = created;
      io.stdout(JSON.stringify({ event: 'room', room: roomId, name: s.createRoom }));
    }
    let stoppedOnTheirOwn = 0;
    let allStopped!: () => void;
    const ended = new Promise<void>((resolve) => (allStopped = resolve));
    let stopping = false;
    s.cameras.forEach((c, i) => {
      const cam = new CameraPublisher({ ...c.options, getTicket: streaming.ticketSource(roomId, 'up'), rejoin: { startAttempts: s.joinAttempts }, loopbackOnly });
      cam.on('status', (st: CameraStatus) => {
        io.stdout(JSON.stringify({ ...st, camera: c.name ?? i + 1, room: roomId }));
        if (st.state === 'stopped' && !stopping && ++stoppedOnTheirOwn === s.cameras.length) allStopped();
      });
      cam.on('error', (err) => io.stderr(`camera ${c.name ?? i + 1}: ${describe(err)}`));
      cameras.push(cam);
    });
    const started = Promise.all(cameras.map((c) => c.start())).then(
      () => undefined,
      (err: unknown) => ({ err }),
    );
    const outcome = await Promise.race([started, stopAsked]);
    if (outcome === STOP) {
      // The finally stops every camera, which ends the starts still joining.
      stopping = true;
      return 0;
    }
    if (outcome) {
      stopping = true;
      io.stderr(`vision-streaming publish: could not start: ${describe(outcome.err)}`);
      // A source found wrong only now (a missing device or file) is a bad option, like any other.
      return outcome.err instanceof InputError ? 2 : 1;
    }
    cameras.forEach((c, i) => io.stderr(`camera ${s.cameras[i].name ?? i + 1} (${c.status?.source}) publishes into room ${roomId} as stream ${c.streamId}`));
    io.stderr(`${cameras.length} camera${cameras.length === 1 ? '' : 's'} publishing${s.durationMs ? ` for ${s.durationMs / 1000} s` : ''}; Ctrl-C stops`);
    const which = await Promise.race([stopAsked, ended.then(() => 'ended' as const)]);
    stopping = true;
    return which === 'ended' ? 1 : 0;
  } finally {
    clearTimeout(timer);
    await Promise.all(cameras.map((c) => c.stop()));
    await lease.release();
  }
}

function describe(err: unknown): string {
  return maskUrl(describeError(err));
}

function choice(v: string | undefined, flag: string, allowed: string[]): string | undefined {
  if (v === undefined) return undefined;
  if (!allowed.includes(v)) throw new InputError('invalid_input', `--${flag} takes ${allowed.join(' or ')} (got ${JSON.stringify(v.slice(0, 20))})`, { field: flag, limit: allowed.join(' | ') });
  return v;
}

function int(v: string | undefined, flag: string): number | undefined {
  const n = numberFlag(v, flag);
  if (n !== undefined && !Number.isInteger(n)) throw new InputError('invalid_input', `--${flag} must be a whole number, got ${JSON.stringify(v!.slice(0, 40))}`, { field: flag, limit: 'a whole number' });
  return n;
}

function size(v: string | undefined, flag: string): { width?: number; height?: number } {
  if (v === undefined) return {};
  const m = /^(\d+)x(\d+)$/i.exec(v.trim());
  if (!m) throw new InputError('invalid_input', `--${flag} must be WIDTHxHEIGHT such as 640x480, got ${JSON.stringify(v.slice(0, 40))}`, { field: flag, limit: 'WxH' });
  return { width: Number(m[1]), height: Number(m[2]) };
}
