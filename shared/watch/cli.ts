import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InputError, isClientError } from '../errors';
import type { WatchEvent } from './events';
import { FaceWatcher } from './face-watcher';
import type { WatchOptions } from './options';

/** Where the real services live (the defaults of --auth-url, --vision-url, --sfu-url). */
export const SERVICE_URLS = { auth: 'https://auth.api.ricoh', vision: 'https://ips.api.ricoh', sfu: 'https://sfu.api.ricoh' } as const;

/** One flag: its name, the environment variable that also sets it, whether it takes a value, its help line. */
interface Flag {
  name: string;
  env: string;
  value?: string;
  help: string;
}

const FLAGS: readonly Flag[] = [
  { name: 'auth-url', env: 'VS_AUTH_URL', value: 'URL', help: `authorization server (default ${SERVICE_URLS.auth})` },
  { name: 'vision-url', env: 'VS_VISION_URL', value: 'URL', help: `Visual Recognition API (default ${SERVICE_URLS.vision})` },
  { name: 'sfu-url', env: 'VS_SFU_URL', value: 'URL', help: `Live Streaming API (default ${SERVICE_URLS.sfu})` },
  { name: 'client-id', env: 'VS_CLIENT_ID', value: 'ID', help: 'client id (required); the secret is read from VS_CLIENT_SECRET only' },
  { name: 'room', env: 'VS_ROOM', value: 'ID', help: 'room to watch (required)' },
  { name: 'collection', env: 'VS_COLLECTION', value: 'ID', help: 'face collection to compare with (required)' },
  { name: 'threshold', env: 'VS_THRESHOLD', value: 'N', help: 'least score 0..1 for a match (default 0.7)' },
  { name: 'cooldown', env: 'VS_COOLDOWN', value: 'SECONDS', help: 'one match per face per this many seconds (default 60)' },
  { name: 'cooldown-scope', env: 'VS_COOLDOWN_SCOPE', value: 'stream|room', help: 'cooldown per stream (default) or per room' },
  { name: 'fps', env: 'VS_FPS', value: 'N', help: 'samples per second per stream (default 2)' },
  { name: 'change-threshold', env: 'VS_CHANGE_THRESHOLD', value: 'N', help: 'skip samples that differ less than this (0..255, default 4)' },
  { name: 'min-face-size', env: 'VS_MIN_FACE_SIZE', value: 'PX', help: 'skip faces smaller than this (default 40)' },
  { name: 'budget', env: 'VS_BUDGET', value: 'N', help: 'API calls per second at most (default 5)' },
  { name: 'labels', env: 'VS_LABELS', value: 'FILE', help: 'JSON file {"<face_id or stream_id>": "name"}' },
  { name: 'streams', env: 'VS_STREAMS', value: 'ID,ID', help: 'watch only these stream ids (publishers\' client_ids)' },
  { name: 'events', env: 'VS_EVENTS', value: 'LIST', help: 'events to print: match,unknown,status,error (default all)' },
  { name: 'decoder', env: 'VS_DECODER', value: 'auto|ffmpeg|wasm', help: 'decoder backend (default auto)' },
  { name: 'codec', env: 'VS_CODEC', value: 'VP8|VP9|H264', help: 'codec to ask the room for (default VP8)' },
  { name: 'snapshots', env: 'VS_SNAPSHOTS', value: 'DIR', help: 'write each snapshot there; the event gives its path' },
  { name: 'base64', env: 'VS_BASE64', help: 'give snapshots inline as base64 (without --snapshots)' },
  { name: 'boxes', env: 'VS_BOXES', help: 'also make snapshot_boxes (faces boxed and labelled)' },
  { name: 'duration', env: 'VS_DURATION', value: 'SECONDS', help: 'stop after this long and exit 0' },
  { name: 'loopback', env: 'VS_LOOPBACK', help: 'WebRTC on 127.0.0.1 only (a local sandbox)' },
  { name: 'help', env: '', help: 'show this help' },
];

/** The help text of `vision-streaming watch`. */
export function helpText(): string {
  const lines = FLAGS.map((f) => {
    const left = `  --${f.name}${f.value ? ` ${f.value}` : ''}`;
    const env = f.env ? ` [${f.env}]` : '';
    return `${left.padEnd(36)} ${f.help}${env}`;
  });
  return [
    'Usage: vision-streaming watch [options]',
    '',
    'Watches a live room and prints one JSON object per line on stdout for each event:',
    '  match   {event, face_id, label, score, location, room, stream_id, track, time, snapshot}',
    '  unknown {event, score, location, room, stream_id, track, time, snapshot}',
    '  status  {event, state, room, counts, ...}    error {event, error, stream_id?, time}',
    'Diagnostics go to stderr. Ctrl-C stops cleanly (exit 0). Exit 2: bad options; 1: could not start.',
    '',
    'Options (each may also be set by the environment variable in brackets; a flag wins):',
    ...lines,
    '',
    'Environment only:',
    '  VS_CLIENT_SECRET                     the client secret (never a flag: it would show in ps)',
    '',
    'snapshot is a file path with --snapshots, base64 with --base64, else null.',
    '',
  ].join('\n');
}

/** Streams the command writes to, and how it learns it should stop (tests pass their own). */
export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Resolves when the user asks to stop (Ctrl-C). */
  interrupted: Promise<void>;
}

/** Runs `vision-streaming <args>`; resolves with the exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(helpText());
    return command === undefined ? 2 : 0;
  }
  if (command !== 'watch') {
    io.stderr(`vision-streaming: unknown command "${command}"; try: vision-streaming watch --help`);
    return 2;
  }
  let settings: CliSettings;
  try {
    settings = await readSettings(rest, env);
  } catch (err) {
    io.stderr(`vision-streaming watch: ${err instanceof Error ? err.message : String(err)}`);
    io.stderr('see: vision-streaming watch --help');
    return 2;
  }
  if (settings.help) {
    io.stdout(helpText());
    return 0;
  }
  return watch(settings, io);
}

interface CliSettings {
  help: boolean;
  options: WatchOptions;
  snapshots?: string;
  base64: boolean;
  durationMs?: number;
}

async function readSettings(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliSettings> {
  const parsed = parseArgs({
    args: [...args],
    options: Object.fromEntries(FLAGS.map((f) => [f.name, { type: f.value ? 'string' : 'boolean' }])) as Record<string, { type: 'string' | 'boolean' }>,
    strict: true,
    allowPositionals: false,
  }).values as Record<string, string | boolean | undefined>;
  if (parsed.help) return { help: true, options: undefined as never, base64: false };
  const get = (name: string): string | undefined => {
    const v = parsed[name];
    if (typeof v === 'string') return v;
    const flag = FLAGS.find((f) => f.name === name)!;
    const e = env[flag.env];
    return e === undefined || e === '' ? undefined : e;
  };
  const on = (name: string): boolean => {
    if (parsed[name] === true) return true;
    const e = env[FLAGS.find((f) => f.name === name)!.env];
    return e !== undefined && /^(1|true|yes|on)$/i.test(e);
  };
  const required = (name: string): string => {
    const v = get(name);
    if (!v) throw new InputError(name, `--${name} is required (or ${FLAGS.find((f) => f.name === name)!.env})`, 'a value');
    return v;
  };
  const clientSecret = env.VS_CLIENT_SECRET;
  if (!clientSecret) throw new InputError('VS_CLIENT_SECRET', 'the client secret must be given in the environment variable VS_CLIENT_SECRET', 'a value');
  const credentials = { authUrl: get('auth-url') ?? SERVICE_URLS.auth, clientId: required('client-id'), clientSecret };
  const labelsFile = get('labels');
  const options: WatchOptions = {
    vision: { ...credentials, visionUrl: get('vision-url') ?? SERVICE_URLS.vision },
    streaming: { ...credentials, sfuUrl: get('sfu-url') ?? SERVICE_URLS.sfu },
    roomId: required('room'),
    collectionId: required('collection'),
    threshold: number(get('threshold'), 'threshold'),
    cooldownSeconds: number(get('cooldown'), 'cooldown'),
    cooldownScope: get('cooldown-scope') as WatchOptions['cooldownScope'],
    fps: number(get('fps'), 'fps'),
    changeThreshold: number(get('change-threshold'), 'change-threshold'),
    minFaceSize: number(get('min-face-size'), 'min-face-size'),
    budgetPerSecond: number(get('budget'), 'budget'),
    labels: labelsFile ? await readLabels(labelsFile) : undefined,
    streams: list(get('streams')),
    events: list(get('events')) as WatchOptions['events'],
    decoder: get('decoder') as WatchOptions['decoder'],
    codec: get('codec') as WatchOptions['codec'],
    drawBoxes: on('boxes'),
    loopbackOnly: on('loopback'),
  };
  const duration = number(get('duration'), 'duration');
  if (duration !== undefined && !(duration > 0)) throw new InputError('duration', '--duration must be a number of seconds > 0', '> 0');
  return { help: false, options, snapshots: get('snapshots'), base64: on('base64'), durationMs: duration === undefined ? undefined : duration * 1000 };
}

async function watch(settings: CliSettings, io: CliIo): Promise<number> {
  let watcher: FaceWatcher;
  try {
    watcher = new FaceWatcher(settings.options);
  } catch (err) {
    io.stderr(`vision-streaming watch: ${describe(err)}`);
    return 2;
  }
  if (settings.snapshots) await mkdir(settings.snapshots, { recursive: true });
  let written = 0;
  // Events are printed in the order they come; snapshot files are written before the line that names them.
  let printing = Promise.resolve();
  const print = (e: WatchEvent): void => {
    printing = printing.then(async () => io.stdout(JSON.stringify(await toLine(e, settings, ++written)))).catch((err: unknown) => io.stderr(`could not write an event: ${describe(err)}`));
  };
  for (const name of ['match', 'unknown', 'status', 'error'] as const) watcher.on(name, print);
  try {
    await watcher.start();
  } catch (err) {
    await printing;
    io.stderr(`vision-streaming watch: could not start: ${describe(err)}`);
    return 1;
  }
  io.stderr(`watching room ${settings.options.roomId}${settings.durationMs ? ` for ${settings.durationMs / 1000} s` : ''}; Ctrl-C stops`);
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<void>((resolve) => {
    if (settings.durationMs) timer = setTimeout(resolve, settings.durationMs);
  });
  const ended = new Promise<void>((resolve) => watcher.on('status', (s) => s.state === 'stopped' && resolve()));
  await Promise.race([io.interrupted, timeUp, ended]);
  clearTimeout(timer);
  await watcher.stop();
  await printing;
  const stats = watcher.stats;
  io.stderr(`stopped: ${stats.frames.received} frames, ${stats.samples.analysed} samples analysed, ${stats.api.detect + stats.api.compare} API calls, ${stats.events.match} matches, ${stats.events.unknown} unknown`);
  return 0;
}

/** The JSON line of an event: snapshots become a file path, base64, or null; errors their safe fields. */
async function toLine(e: WatchEvent, s: CliSettings, n: number): Promise<Record<string, unknown>> {
  if (e.event === 'error') return { ...e, error: e.error.toJSON() };
  if (e.event === 'status') return { ...e };
  const out: Record<string, unknown> = { ...e };
  for (const key of ['snapshot', 'snapshot_boxes'] as const) {
    const jpeg = e[key];
    if (!jpeg) continue;
    if (s.snapshots) {
      const file = path.resolve(s.snapshots, `${e.time.replace(/[:.]/g, '-')}-${e.event}-${n}${key === 'snapshot_boxes' ? '-boxes' : ''}.jpg`);
      await writeFile(file, jpeg);
      out[key] = file;
    } else if (s.base64) out[key] = jpeg.toString('base64');
    else out[key] = null;
  }
  return out;
}

async function readLabels(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError('labels', `cannot read the labels file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, 'a readable JSON file');
  }
  try {
    return JSON.parse(text) as Record<string, string>;
  } catch {
    throw new InputError('labels', `the labels file ${file} is not JSON`, 'a JSON object of id -> name');
  }
}

function number(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InputError(name, `--${name} must be a number, got ${JSON.stringify(v.slice(0, 40))}`, 'a number');
  return n;
}

function list(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function describe(err: unknown): string {
  if (isClientError(err)) return `${err.message} [${err.code}]`;
  return err instanceof Error ? err.message : String(err);
}

/** Entry point of the bin: real stdout/stderr, Ctrl-C and SIGTERM stop the watcher. */
export function runCli(): void {
  let interrupt!: () => void;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    if (signals > 1) process.exit(130);
    process.stderr.write('stopping...\n');
    interrupt();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stdout.on('error', () => undefined);
  const io: CliIo = {
    stdout: (line) => void process.stdout.write(`${line}\n`),
    stderr: (line) => void process.stderr.write(`${line}\n`),
    interrupted,
  };
  void main(process.argv.slice(2), process.env, io).then(
    (code) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`vision-streaming: ${describe(err)}\n`);
      process.exitCode = 1;
    },
  );
}
