import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { acquireConnection, type ConnectionLease } from '../shared/connection';
import { SERVICE_URLS } from '../shared/service-urls';
import { InputError, isClientError } from '../shared/errors';
import type { StreamingCredentialsOptions } from '../shared/streaming';
import type { VisionCredentialsOptions } from '../shared/vision';
import { FaceWatcher, type WatchEvent, type WatchOptions } from '../shared/watch';
import { defaultText, hostOptions, optionSpec, rangeText, WATCH_OPTIONS, type HostValue, type OptionSpec, type WatchOptionName } from '../shared/watch/option-table';
import { cliFlag, envOf } from './option-flags';
import { publishMain, START_ATTEMPTS } from './publish';
import { VisitorFile } from './visitor-file';
import { checkSnapshotFolder, fileFailure } from './snapshot-folder';


/** Exit code when the room was lost (session_lost): the watch did not end as asked. */
const EXIT_SESSION_LOST = 3;

/** One flag: its name, the environment variable that also sets it, whether it takes a value, its help line, the option it sets. */
interface Flag {
  name: string;
  env: string;
  value?: string;
  help: string;
}

/** The flags of the watcher's options, where option-flags.ts names them: help and default from the core's table. */
const OPTION_FLAGS: readonly (Flag & { option: OptionSpec; key: WatchOptionName })[] = WATCH_OPTIONS.flatMap((entry) => {
  const o: OptionSpec = entry;
  const placed = cliFlag(entry.name);
  if (!placed) return [];
  const { flag, value } = placed;
  const shown = defaultText(o);
  const range = o.kind === 'number' || o.kind === 'integer' ? ` (${rangeText(o)}${o.unit ? ` ${o.unit}` : ''})` : '';
  return [{ name: flag, env: envOf(flag), value, help: `${o.help}${range}${shown ? `; default ${shown}` : ''}`, option: o, key: entry.name }];
});

const FLAGS: readonly Flag[] = [
  { name: 'auth-url', env: 'VS_AUTH_URL', value: 'URL', help: `authorization server (default ${SERVICE_URLS.authUrl})` },
  { name: 'vision-url', env: 'VS_VISION_URL', value: 'URL', help: `Visual Recognition API (default ${SERVICE_URLS.visionUrl})` },
  { name: 'sfu-url', env: 'VS_SFU_URL', value: 'URL', help: `Live Streaming API (default ${SERVICE_URLS.sfuUrl})` },
  { name: 'client-id', env: 'VS_CLIENT_ID', value: 'ID', help: 'client id (required); the secret is read from VS_CLIENT_SECRET only' },
  { name: 'room', env: 'VS_ROOM', value: 'ID', help: 'room to watch (required)' },
  { name: 'collection', env: 'VS_COLLECTION', value: 'ID', help: 'face collection to compare with (required)' },
  ...OPTION_FLAGS,
  { name: 'visitors', env: 'VS_VISITORS', value: 'FILE', help: 'with --remember-visitors: keep the visitors enrolled in this JSON file across runs (default: forgotten at exit); it must be yours, not a link, and neither it nor its folder writable by others' },
  { name: 'snapshots', env: 'VS_SNAPSHOTS', value: 'DIR', help: 'write each snapshot and face crop there (files 0600, a new folder 0700); the event gives their paths' },
  { name: 'base64', env: 'VS_BASE64', help: 'give snapshots inline as base64 (without --snapshots)' },
  { name: 'duration', env: 'VS_DURATION', value: 'SECONDS', help: 'stop after this long and exit 0' },
  { name: 'loopback', env: 'VS_LOOPBACK', help: 'WebRTC on 127.0.0.1 only (default: when --sfu-url is on this machine)' },
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
    '  match   {event, face_id, label, score, location, quality, room, stream_id, track, time, snapshot, face}',
    '  unknown {event, score, reason?, visitor_id?, first_visit?, visits?, location, quality, room, stream_id, track, time, snapshot, face}',
    '  arrived {event, visit_id, kind, face_id | visitor_id, label, score, location, quality, room, stream_id, track, time, snapshot, face}',
    '  left    {event, visit_id, kind, reason, face_id | visitor_id | track, label, room, stream_id, arrived_at, left_at, duration_s, time}',
    '  (quality: {face_px, sharpness, brightness, greyscale, direction}; every left follows the arrived of its visit_id)',
    '  status  {event, state, room, counts, ...}    error {event, error, source, stream_id?, time}',
    '  (source: session, decoder, api, stream or visitors: the part of the watcher that failed)',
    'Diagnostics go to stderr. Ctrl-C, SIGTERM or --duration stops it within 5 s, also while it still joins or',
    'rejoins (exit 0). Exit 2: bad options; 1: could not start, e.g. a room that cannot be joined:',
    `${START_ATTEMPTS} attempts, waits doubling from 0.5 s (about 30 s while tickets are refused); 3: the room was lost`,
    '(session_lost) and the watch ended, so that a supervisor restarts it.',
    '',
    'Options (each may also be set by the environment variable in brackets; a flag wins):',
    ...lines,
    '',
    'Environment only:',
    '  VS_CLIENT_SECRET                     the client secret (never a flag: it would show in ps)',
    '  VS_MAX_CONNECTIONS                   sockets per service address at most (default 32; more calls wait their turn)',
    '  VS_ALLOW_PRIVATE_IMAGE_URLS=1        let image URL downloads reach loopback, link-local and private addresses',
    '',
    'snapshot and face (the face crop, ready to enrol) are file paths with --snapshots, base64 with --base64, else null.',
    'Files are written mode 0600, a folder the command creates 0700: they are pictures of people. A file that',
    'cannot be written leaves its field null and says why in file_errors ({"snapshot": "ENOSPC"}); the line still goes out.',
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
    io.stdout(`${helpText()}\nTo publish cameras into a room: vision-streaming publish --help\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'publish') return publishMain(rest, env, io);
  if (command !== 'watch') {
    io.stderr(`vision-streaming: unknown command "${command}"; try: vision-streaming watch --help or vision-streaming publish --help`);
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
  const credentials = { authUrl: get('auth-url') ?? SERVICE_URLS.authUrl, clientId: required('client-id'), clientSecret };
  const vision = { ...credentials, visionUrl: get('vision-url') ?? SERVICE_URLS.visionUrl };
  const streaming = { ...credentials, sfuUrl: get('sfu-url') ?? SERVICE_URLS.sfuUrl };
  const roomId = required('room');
  const collectionId = required('collection');
  const values: [WatchOptionName, HostValue | undefined][] = [];
  for (const flag of OPTION_FLAGS) {
    const o = flag.option;
    const name = flag.key;
    if (o.kind === 'boolean' && !flag.value) {
      if (on(flag.name)) values.push([name, true]);
      continue;
    }
    if (o.kind === 'boolean') {
      // An option that is on by default takes a value, so that it can be turned off.
      const text = get(flag.name);
      if (text === undefined) continue;
      if (!/^(1|true|yes|on|0|false|no|off)$/i.test(text)) throw new InputError(o.name, `--${flag.name} takes on or off (got ${JSON.stringify(text.slice(0, 20))})`, 'on|off');
      values.push([name, /^(1|true|yes|on)$/i.test(text)]);
      continue;
    }
    const text = get(flag.name);
    if (text === undefined) continue;
    if (o.kind === 'number' || o.kind === 'integer') values.push([name, number(text, flag.name)]);
    else if (o.kind === 'list') values.push([name, list(text)]);
    else if (o.kind === 'labels') values.push([name, await readLabels(text)]);
    else values.push([name, text]);
  }
  const options: WatchOptions = {
    ...hostOptions(values),
    vision,
    streaming,
    roomId,
    collectionId,
    ...(on('loopback') ? { loopbackOnly: true } : {}),
  };
  const events: readonly string[] = options.events ?? [];
  const known = optionChoices('events');
  for (const e of events) {
    if (!known.includes(e)) throw new InputError('events', `--events takes ${known.join(', ')}; got ${JSON.stringify(e.slice(0, 40))}`, known.join(','));
  }
  const visitorsFile = get('visitors');
  if (visitorsFile !== undefined) {
    const store = new VisitorFile(visitorsFile, credentials);
    await store.check();
    options.visitorStore = store;
  }
  const snapshots = get('snapshots');
  if (snapshots !== undefined) await checkSnapshotFolder(snapshots);
  const duration = number(get('duration'), 'duration');
  if (duration !== undefined && !(duration > 0)) throw new InputError('duration', '--duration must be a number of seconds > 0', '> 0');
  return { help: false, options, snapshots, base64: on('base64'), durationMs: duration === undefined ? undefined : duration * 1000 };
}

async function watch(settings: CliSettings, io: CliIo): Promise<number> {
  let watcher: FaceWatcher;
  let lease: ConnectionLease | undefined;
  try {
    const o = settings.options;
    const vision = o.vision as VisionCredentialsOptions;
    const streaming = o.streaming as StreamingCredentialsOptions;
    // The command's own connection, released at the end: idle keep-alive sockets would hold the process.
    lease = acquireConnection({ authUrl: vision.authUrl, visionUrl: vision.visionUrl, sfuUrl: streaming.sfuUrl, clientId: vision.clientId, clientSecret: vision.clientSecret, owner: 'the command' });
    // The command hears every event (it must see 'stopped'); --events chooses what it prints.
    // A room that cannot be joined ends the command (exit 1) after the same attempts as publish.
    const session = { ...o.session, rejoin: { startAttempts: START_ATTEMPTS, ...o.session?.rejoin } };
    watcher = new FaceWatcher({ ...o, vision: lease.vision(), streaming: lease.streaming(), events: undefined, session });
  } catch (err) {
    await lease?.release();
    io.stderr(`vision-streaming watch: ${describe(err)}`);
    return 2;
  }
  try {
    return await watchWith(settings, io, watcher);
  } finally {
    await watcher.stop();
    await lease.release();
  }
}

async function watchWith(settings: CliSettings, io: CliIo, watcher: FaceWatcher): Promise<number> {
  let written = 0;
  // Events are printed in the order they come; snapshot files are written before the line that names them.
  let printing = Promise.resolve();
  const shown = new Set(settings.options.events ?? optionChoices('events'));
  const print = (e: WatchEvent): void => {
    if (!shown.has(e.event)) return;
    printing = printing.then(async () => {
      const line = await toLine(e, settings, ++written);
      if (line.file_errors) io.stderr(`could not write a file of a ${e.event} event (${Object.values(line.file_errors as Record<string, string>).join(', ')}); the event line says which`);
      io.stdout(JSON.stringify(line));
    }).catch((err: unknown) => io.stderr(`could not write an event: ${describe(err)}`));
  };
  for (const name of ['match', 'unknown', 'arrived', 'left', 'status', 'error'] as const) watcher.on(name, print);
  // The duration and a signal count from the start: they also end a watch still joining or backing off.
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<void>((resolve) => {
    if (settings.durationMs) timer = setTimeout(resolve, settings.durationMs);
  });
  const stopAsked = Promise.race([io.interrupted, timeUp]).then(() => 'stop' as const);
  const started = watcher.start().then(
    () => undefined,
    (err: unknown) => ({ err }),
  );
  const outcome = await Promise.race([started, stopAsked]);
  if (outcome === 'stop') {
    clearTimeout(timer);
    // Stopping ends the start under way (its join, its backoff); the caller closes the connection.
    await watcher.stop();
    await printing;
    io.stderr('stopped before the room was joined');
    return 0;
  }
  if (outcome) {
    clearTimeout(timer);
    await printing;
    io.stderr(`vision-streaming watch: could not start: ${describe(outcome.err)}`);
    return 1;
  }
  const werift = watcher.stats.werift;
  const speedups = werift.enabled ? 'on' : `off: ${werift.reason ?? 'unknown'}`;
  io.stderr(`watching room ${settings.options.roomId}${settings.durationMs ? ` for ${settings.durationMs / 1000} s` : ''} (werift ${werift.version ?? '?'}, speed-ups ${speedups}); Ctrl-C stops`);
  let lost: string | undefined;
  const ended = new Promise<void>((resolve) =>
    watcher.on('status', (s) => {
      if (s.state !== 'stopped') return;
      if (s.reason === 'session_lost') lost = s.error?.message ?? 'the room was lost';
      resolve();
    }),
  );
  await Promise.race([stopAsked, ended]);
  clearTimeout(timer);
  await watcher.stop();
  await printing;
  const stats = watcher.stats;
  io.stderr(`stopped: ${stats.frames.received} frames, ${stats.samples.analysed} samples analysed, ${stats.api.detect + stats.api.compare} API calls, ${stats.events.match} matches, ${stats.events.unknown} unknown, ${stats.events.arrived} arrivals${stats.events.muted ? `, ${stats.events.muted} muted` : ''}`);
  if (lost !== undefined) {
    // Not a clean end: a supervisor with restart-on-failure must see it.
    io.stderr(`vision-streaming watch: the watch ended: ${lost} [session_lost]`);
    return EXIT_SESSION_LOST;
  }
  return 0;
}

/** The JSON line of an event: snapshots and the face crop become a file path, base64, or null; errors their safe fields. */
async function toLine(e: WatchEvent, s: CliSettings, n: number): Promise<Record<string, unknown>> {
  if (e.event === 'error') return { ...e, error: e.error.toJSON() };
  if (e.event === 'status') return { ...e };
  const out: Record<string, unknown> = { ...e };
  const suffix = { snapshot: '', snapshot_boxes: '-boxes', face: '-face' } as const;
  if (e.event === 'left') return { ...e };
  const failed: Record<string, string> = {};
  for (const key of ['snapshot', 'snapshot_boxes', 'face'] as const) {
    const jpeg = e[key];
    if (!jpeg) continue;
    if (s.snapshots) {
      const file = path.resolve(s.snapshots, `${e.time.replace(/[:.]/g, '-')}-${e.event}-${n}${suffix[key]}.jpg`);
      try {
        // A new file only (never through a link planted at its name), readable by this user alone.
        await writeFile(file, jpeg, { mode: 0o600, flag: 'wx' });
        out[key] = file;
      } catch (err) {
        // The event still goes out: its file field null, and why.
        out[key] = null;
        failed[key] = fileFailure(err);
      }
    } else if (s.base64) out[key] = jpeg.toString('base64');
    else out[key] = null;
  }
  if (Object.keys(failed).length > 0) out.file_errors = failed;
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

function optionChoices(name: 'events'): string[] {
  return (optionSpec(name).choices ?? []).map((c) => c.value);
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
      // Everything is closed by now; should a library still hold a handle, the command ends anyway.
      setTimeout(() => process.exit(code), 3000).unref();
    },
    (err: unknown) => {
      process.stderr.write(`vision-streaming: ${describe(err)}\n`);
      process.exitCode = 1;
    },
  );
}
