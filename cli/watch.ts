import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConnectionLease } from '../shared/connection';
import { InputError } from '../shared/errors';
import type { ClientCredentials } from '../shared/auth/client-tokens';
import type { FaceWatcher, TracksEvent, WatchEvent, WatchOptions } from '../shared/watch';
import { setWeriftSpeedups, WERIFT_SPEEDUPS_ENV } from '../shared/signaling/werift-speedups/status';
import { defaultText, hostOptions, optionSpec, rangeText, WATCH_OPTIONS, type HostValue, type OptionSpec, type WatchOptionName } from '../shared/watch/option-table';
import { FilePeopleStore, peopleKey } from '../shared/people/file-store';
import { CREDENTIAL_FLAGS, DEFAULT_JOIN_ATTEMPTS, DURATION_FLAG, HELP_FLAG, JOIN_ATTEMPTS_FLAG, LOOPBACK_FLAG, credentialsOf, durationOf, helpPage, joinAttemptsOf, numberFlag, onOffFlag, parseFlags, type Flag } from './flags';
import { describe, refuseInput } from './errors';
import { readLabelsFile } from './input-files';
import { cliFlag, envOf } from './option-flags';
import type { CliIo } from './io';
import { VisitorFile } from './visitor-file';
import { checkSnapshotFolder, fileFailure } from './snapshot-folder';
import { checkPrivateFolder } from '../shared/util/private-folder';
import { openWatchHistory, WATCH_HISTORY_FLAGS } from './history';


/** Exit code when the room was lost (session_lost): the watch did not end as asked. */
const EXIT_SESSION_LOST = 3;

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

/** The flags of `vision-streaming watch`, in the order --help lists them. */
export const FLAGS: readonly Flag[] = [
  ...CREDENTIAL_FLAGS,
  { name: 'room', env: 'VS_ROOM', value: 'ID', help: 'room to watch (required)' },
  { name: 'collection', env: 'VS_COLLECTION', value: 'ID', help: 'face collection to compare with (required)' },
  ...OPTION_FLAGS,
  // A process setting, not a watcher option: the command is one process, so its flag sets it.
  { name: 'werift-speedups', env: WERIFT_SPEEDUPS_ENV, value: 'on|off', help: "whether the process's WebRTC receive path runs with the package's measured werift speed-ups (off: werift as published); default on" },
  { name: 'people', env: 'VS_PEOPLE', value: 'FILE', help: 'name faces by the people of this file (vision-streaming people writes it): a person is one someone however many faces; changes apply within seconds' },
  { name: 'visitors', env: 'VS_VISITORS', value: 'FILE', help: 'with --remember-visitors: keep the visitors enrolled in this JSON file across runs (default: forgotten at exit); it must be yours, not a link, and neither it nor its folder writable by others' },
  { name: 'snapshots', env: 'VS_SNAPSHOTS', value: 'DIR', help: 'write each snapshot and face crop there (files 0600, a new folder 0700); the event gives their paths' },
  { name: 'base64', env: 'VS_BASE64', help: 'give snapshots inline as base64 (without --snapshots)' },
  { name: 'clips', env: 'VS_CLIPS', value: 'DIR', help: 'write a clip of each visit there (WebM for VP8/VP9, MP4 for H.264, as the stream sent it; files 0600, a new folder 0700) and print a clip line' },
  ...WATCH_HISTORY_FLAGS.map((f) => (f.name === 'history' ? { ...f, help: `keep every visit (who, when, how long, face crop, snapshot, clip with --clips) in ${f.help.replace(/^the history: /, '')}; vision-streaming history searches it` } : f)),
  JOIN_ATTEMPTS_FLAG,
  DURATION_FLAG,
  LOOPBACK_FLAG,
  HELP_FLAG,
];

/** The help text of `vision-streaming watch`. */
export function helpText(): string {
  return helpPage({
    command: 'watch',
    usage: '[options]',
    about: [
      'Watches a live room and prints one JSON object per line on stdout for each event:',
      '  match   {event, person_id?, name?, face_id, label, score, location, quality, room, stream_id, track, time, snapshot, face}',
      '  unknown {event, score, reason?, closest?, visitor_id?, first_visit?, visits?, location, quality, room, stream_id, track, time, snapshot, face}',
      '  arrived {event, visit_id, kind, person_id? name?, face_id | visitor_id, label, score, arrived_at, location, quality, room, stream_id, track, time, snapshot, face}',
      '  left    {event, visit_id, kind, reason, person_id? name?, face_id | visitor_id | track, label, room, stream_id, arrived_at, left_at, duration_s, time}',
      '  (with --people: person_id and name name the person, label equals the name; an unknown may say reason not_person',
      '  and the closest person {person_id, name, score})',
      '  (quality: {face_px, sharpness, brightness, greyscale, direction}; every left follows the arrived of its visit_id)',
      '  status  {event, state, room, counts, ...}    error {event, error, source, stream_id?, time}',
      '  (source: session, decoder, api, stream, visitors, people or history: the part of the watcher that failed)',
      '  clip    {event, room, stream_id, visit_id?, kind?, trigger, person_id? name? face_id? | visitor_id | track, label, start, end,',
      '          duration_s, bytes, container, codec, width, height, path, ended, time} or {..., error, cause?} (with --clips)',
      '  tracks  {event, room, stream_id, frame_time, width, height, tracks: [{track, location, verdict, person_id? name? face_id?',
      '          visitor_id?, label}], still?, time} at each analysed sample (with --tracks; verdict person, visitor, unknown or pending)',
      'Diagnostics go to stderr. Ctrl-C, SIGTERM or --duration stops it within 5 s, also while it still joins or',
      'rejoins (exit 0). Exit 2: bad options; 1: could not start, e.g. a room that cannot be joined:',
      `${DEFAULT_JOIN_ATTEMPTS} attempts (--join-attempts), waits doubling from 0.5 s (about 30 s while tickets are refused);`,
      '3: the room was lost (session_lost) and the watch ended, so that a supervisor restarts it.',
    ],
    flags: FLAGS,
    environment: {
      VS_MAX_CONNECTIONS: 'sockets per service address at most (default 32; more calls wait their turn)',
      'VS_ALLOW_PRIVATE_IMAGE_URLS=1': 'let image URL downloads reach loopback, link-local and private addresses',
    },
    after: [
      'snapshot and face (the face crop, ready to enrol) are file paths with --snapshots, base64 with --base64, else null.',
      'Files are written mode 0600, a folder the command creates 0700: they are pictures of people. A file that',
      'cannot be written leaves its field null and says why in file_errors ({"snapshot": "ENOSPC"}); the line still goes out.',
    ],
  });
}

/** Runs `vision-streaming watch <args>`; resolves with the exit code. */
export async function watchMain(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let settings: CliSettings;
  try {
    settings = await readSettings(args, env);
  } catch (err) {
    return refuseInput('watch', err, FLAGS, io);
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
  /** Attempts at the first join before the command gives up. */
  joinAttempts: number;
  /** The process setting of the werift speed-ups, when the flag or its variable gives one. */
  weriftSpeedups?: boolean;
}

async function readSettings(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliSettings> {
  const flags = parseFlags(args, FLAGS, env);
  if (flags.on('help')) return { help: true, options: undefined as never, base64: false, joinAttempts: 0 };
  const { get, on, required } = flags;
  const { authUrl, visionUrl, sfuUrl, clientId, clientSecret } = credentialsOf(flags, env);
  const credentials = { authUrl, clientId, clientSecret };
  const vision = { ...credentials, visionUrl };
  const streaming = { ...credentials, sfuUrl };
  const roomId = required('room');
  const collectionId = required('collection');
  const values: [WatchOptionName, HostValue | undefined][] = [];
  for (const flag of OPTION_FLAGS) {
    const o = flag.option;
    const name = flag.key;
    if (o.kind === 'boolean') {
      if (on(flag.name)) values.push([name, true]);
      continue;
    }
    const text = get(flag.name);
    if (text === undefined) continue;
    if (o.kind === 'number' || o.kind === 'integer') values.push([name, numberFlag(text, flag.name)]);
    else if (o.kind === 'list') values.push([name, list(text)]);
    else if (o.kind === 'labels') values.push([name, await readLabelsFile(text)]);
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
  const joinAttempts = joinAttemptsOf(flags);
  const events: readonly string[] = options.events ?? [];
  const known = optionChoices('events');
  for (const e of events) {
    if (!known.includes(e)) throw new InputError('invalid_input', `--events takes ${known.join(', ')}; got ${JSON.stringify(e.slice(0, 40))}`, { field: 'events', limit: known.join(',') });
  }
  const visitorsFile = get('visitors');
  if (visitorsFile !== undefined) {
    const store = new VisitorFile(visitorsFile, credentials);
    await store.check();
    options.visitorStore = store;
  }
  const peopleFile = get('people');
  if (peopleFile !== undefined) {
    const people = new FilePeopleStore(peopleFile, { collectionId, key: peopleKey(credentials) });
    // Read once now: a file that is not trusted, of another collection or with a broken seal is bad input.
    await people.load();
    options.people = people;
  }
  const clips = get('clips');
  if (clips !== undefined) {
    await checkPrivateFolder(clips, '--clips', 'clips');
    options.clips = clips;
  }
  const snapshots = get('snapshots');
  if (snapshots !== undefined) await checkSnapshotFolder(snapshots);
  // Last, as it opens the database: one that is refused (another user's, a link, writable by others) is bad input.
  const history = await openWatchHistory(flags);
  if (history) options.history = history;
  return { help: false, options, snapshots, base64: on('base64'), durationMs: durationOf(flags), joinAttempts, weriftSpeedups: onOffFlag(get('werift-speedups'), 'werift-speedups') };
}

async function watch(settings: CliSettings, io: CliIo): Promise<number> {
  // Loaded only now, so that --help and a bad flag answer without loading WebRTC and HTTP.
  const [{ acquireConnection }, { FaceWatcher }] = await Promise.all([import('../shared/connection'), import('../shared/watch/face-watcher')]);
  let watcher: FaceWatcher;
  let lease: ConnectionLease | undefined;
  try {
    // Before the first connection of the process: its receive workers start with the setting.
    if (settings.weriftSpeedups !== undefined) setWeriftSpeedups(settings.weriftSpeedups);
    const o = settings.options;
    const vision = o.vision as ClientCredentials & { visionUrl: string };
    const streaming = o.streaming as ClientCredentials & { sfuUrl: string };
    // The command's own connection, released at the end: idle keep-alive sockets would hold the process.
    lease = acquireConnection({ authUrl: vision.authUrl, visionUrl: vision.visionUrl, sfuUrl: streaming.sfuUrl, clientId: vision.clientId, clientSecret: vision.clientSecret, owner: 'the command' });
    // The command hears every event (it must see 'stopped'); --events chooses what it prints.
    // A room that cannot be joined ends the command (exit 1) after --join-attempts, as publish does.
    const session = { ...o.session, rejoin: { startAttempts: settings.joinAttempts, ...o.session?.rejoin } };
    watcher = new FaceWatcher({ ...o, vision: lease.vision(), streaming: lease.streaming(), events: undefined, session });
  } catch (err) {
    await lease?.release();
    await closeHistory(settings, io);
    // The watcher checks its options as it is made: a refusal is bad input, its flag named.
    return refuseInput('watch', err, FLAGS, io);
  }
  try {
    return await watchWith(settings, io, watcher);
  } finally {
    await watcher.stop();
    await lease.release();
    await closeHistory(settings, io);
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
  // A clip line says where the file is (or why there is none): it is printed with --clips whatever --events says.
  watcher.on('clip', (e) => (printing = printing.then(() => io.stdout(JSON.stringify(e)))));
  // A tracks line per analysed sample with --tracks (the watcher makes none without it), whatever --events says.
  watcher.on('tracks', (e) => {
    printing = printing.then(async () => io.stdout(JSON.stringify(await toLine(e, settings, ++written)))).catch((err: unknown) => io.stderr(`could not write an event: ${describe(err)}`));
  });
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

/** The history the command opened (the watcher has written what it could by its stop). */
async function closeHistory(settings: CliSettings, io: CliIo): Promise<void> {
  const store = (settings.options.history as { store?: { close(): Promise<void> } } | undefined)?.store;
  await store?.close().catch((err: unknown) => io.stderr(`vision-streaming watch: closing the history: ${describe(err)}`));
}

/** The JSON line of an event: snapshots, the face crop and a still become a file path, base64, or null; errors their safe fields. */
async function toLine(e: WatchEvent | TracksEvent, s: CliSettings, n: number): Promise<Record<string, unknown>> {
  if (e.event === 'error') return { ...e, error: e.error.toJSON() };
  if (e.event === 'status') return { ...e };
  const out: Record<string, unknown> = { ...e };
  const suffix = { snapshot: '', snapshot_boxes: '-boxes', face: '-face', still: '-still' } as const;
  if (e.event === 'left') return { ...e };
  const failed: Record<string, string> = {};
  const pictures = e as Partial<Record<keyof typeof suffix, Buffer>>;
  for (const key of Object.keys(suffix) as (keyof typeof suffix)[]) {
    const jpeg = pictures[key];
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
