import { InputError } from '../errors';
import { isLoopbackServiceUrl } from '../image/literal-host';
import { StreamingClient, type StreamingClientOptions } from '../streaming';
import type { VisionClient, VisionClientOptions } from '../vision';
import { rangeText, WATCH_OPTIONS, type OptionSpec, type OptionValues, type ResolvedOptionValues } from './option-table';
import type { PeopleStore } from '../people/types';
import { resolveHistoryOption, type HistoryOption, type ResolvedHistoryOption } from '../history/option';
import type { HistoryStore } from '../history/types';
import type { VisitorStore } from './visitors';

/**
 * Options of a FaceWatcher: each option of the table (option-table.ts: its help, default and range),
 * typed from it, plus the clients, the room, the collection and the plumbing below.
 */
export interface WatchOptions extends OptionValues {
  /** A vision client (kept open by the watcher's owner) or options to build one (closed on stop). */
  vision: VisionClientOptions | VisionClient;
  /** A streaming client (kept open) or options to build one (closed on stop). */
  streaming: StreamingClientOptions | StreamingClient;
  roomId: string;
  /** The face collection to compare with. */
  collectionId: string;
  /** ffmpeg binary for the ffmpeg backend (else found as the publisher finds it). */
  ffmpegPath?: string;
  /** Bind WebRTC to 127.0.0.1 only; default: when the streaming address is on this machine (a local sandbox). */
  loopbackOnly?: boolean;
  /** Where the visitors the watcher enrolled are kept between runs; default memory. */
  visitorStore?: VisitorStore;
  /**
   * The people directory's store: a face of a person is that person (events, visits, the cooldown,
   * `ignore` and the boxes key on the person). Re-read every 2 s and on the store's `changed` signal.
   */
  people?: PeopleStore;
  /**
   * A folder to write a clip of each visit to (WebM for VP8/VP9, MP4 for H.264, files 0600), cut from
   * the stream's frames as they came: see preRollSeconds, postRollSeconds, maxClipSeconds, clipOn and
   * the `clip` event. It must be this user's and writable by no one else (checked at start).
   */
  clips?: string;
  /**
   * Keep every visit in a history (who, when, for how long, its face crop, snapshot and clip): a
   * history store the host opened (and closes), or where to open one (`{ location, media?,
   * maxAgeDays?, maxMediaBytes? }`: opened at start, closed at stop). Written off the event path;
   * counts in each status event's `history`, failures as `error` events with source 'history'.
   */
  history?: HistoryStore | HistoryOption;
  /**
   * Signaling tweaks passed to the session (rejoin policy, timeouts), and where the WebRTC receive
   * path runs: `thread: 'worker'` (default) one of the process's shared receive workers, which
   * leaves the host's event loop and the host's own werift alone; 'main' this thread (see the streaming README).
   * The werift speed-ups are a process setting (setWeriftSpeedups, VS_WERIFT_SPEEDUPS=0), not an option.
   */
  session?: { rejoin?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number; startAttempts?: number }; timeouts?: Record<string, number>; thread?: 'main' | 'worker' };
}

/** Options with defaults applied and checked: the table's (times in ms) and the rest. */
export interface ResolvedWatchOptions extends ResolvedOptionValues {
  roomId: string;
  collectionId: string;
  ffmpegPath?: string;
  loopbackOnly: boolean;
  visitorStore?: VisitorStore;
  people?: PeopleStore;
  clips?: string;
  history?: ResolvedHistoryOption;
  session?: WatchOptions['session'];
}

/** Checks every option up front; a bad one throws an InputError naming it and its limit. */
export function resolveWatchOptions(o: WatchOptions): ResolvedWatchOptions {
  if (!o || typeof o !== 'object') throw new InputError('invalid_input', 'FaceWatcher needs an options object', { field: 'options', limit: 'an object' });
  if (!o.vision || typeof o.vision !== 'object') throw new InputError('invalid_input', 'vision must be a VisionClient or its options', { field: 'vision', limit: 'an object' });
  if (!o.streaming || typeof o.streaming !== 'object') throw new InputError('invalid_input', 'streaming must be a StreamingClient or its options', { field: 'streaming', limit: 'an object' });
  if (o.clips !== undefined && (typeof o.clips !== 'string' || o.clips === '')) throw new InputError('invalid_input', 'clips must be a folder path', { field: 'clips', limit: 'a non-empty string' });
  if (o.ffmpegPath !== undefined && (typeof o.ffmpegPath !== 'string' || o.ffmpegPath === '')) throw new InputError('invalid_input', 'ffmpegPath must be a path', { field: 'ffmpegPath', limit: 'a non-empty string' });
  return {
    ...resolveTable(o),
    roomId: id(o.roomId, 'roomId'),
    collectionId: id(o.collectionId, 'collectionId'),
    ffmpegPath: o.ffmpegPath,
    // A streaming service on this machine (the sandbox) is reached over loopback only, so WebRTC
    // offers it no other address; the address tells, whatever host runs the watcher.
    loopbackOnly: o.loopbackOnly ?? isLoopbackServiceUrl(o.streaming.sfuUrl),
    visitorStore: store(o.visitorStore),
    people: peopleStore(o.people),
    clips: o.clips,
    ...(o.history !== undefined ? { history: resolveHistoryOption(o.history) } : {}),
    session: o.session,
  };
}

/** Every option of the table, checked and with its default, under the name the core uses. */
function resolveTable(o: OptionValues): ResolvedOptionValues {
  const given: Partial<Record<string, unknown>> = o;
  const out: Record<string, unknown> = {};
  for (const spec of WATCH_OPTIONS as readonly OptionSpec[]) {
    const value = resolveOne(spec, given[spec.name]);
    if (value !== undefined) out[spec.inMs?.name ?? spec.name] = value;
  }
  // Built from the table entry by entry, by the same kinds the types are derived from.
  return out as ResolvedOptionValues;
}

/** One option's value checked against its entry, its default when not given. */
function resolveOne(spec: OptionSpec, v: unknown): unknown {
  switch (spec.kind) {
    case 'number':
    case 'integer': {
      const n = num(v, spec);
      const whole = spec.kind === 'integer' ? Math.round(n) : n;
      return spec.inMs ? whole * spec.inMs.per : whole;
    }
    case 'boolean':
      return v === undefined ? spec.default === true : v === true;
    case 'choice':
      return choice(v, spec);
    case 'list':
      return spec.choices ? choiceList(v, spec) : stringList(v, spec.name);
    case 'labels':
      return labelMap(v, spec.name);
  }
}

/** A number option, its default and range read from the table. */
function num(v: unknown, spec: OptionSpec): number {
  const name = spec.name;
  if (v === undefined) return spec.default as number;
  const min = spec.min ?? Number.NEGATIVE_INFINITY;
  const max = spec.max ?? Number.POSITIVE_INFINITY;
  const limit = rangeText(spec);
  if (typeof v !== 'number' || Number.isNaN(v) || v < min || v > max) {
    throw new InputError('invalid_input', `${name} must be a number in ${limit}, got ${JSON.stringify(v)?.slice(0, 40)}`, { field: name, limit });
  }
  return v;
}

/** A choice option, its default and values read from the table. */
function choice(v: unknown, spec: OptionSpec): string {
  const name = spec.name;
  if (v === undefined) return spec.default as string;
  const values = (spec.choices ?? []).map((c) => c.value);
  if (typeof v !== 'string' || !values.includes(v)) {
    const limit = values.map((x) => `'${x}'`).join(' | ');
    throw new InputError('invalid_input', `${name} must be one of ${values.join(', ')}, got ${JSON.stringify(v)?.slice(0, 40)}`, { field: name, limit });
  }
  return v;
}

/** A list of some of a choice's values (events), its default from the table. */
function choiceList(v: unknown, spec: OptionSpec): ReadonlySet<string> {
  const values = (spec.choices ?? []).map((c) => c.value);
  const list = v === undefined ? spec.default : v;
  if (!Array.isArray(list) || list.some((e) => !values.includes(e as string))) {
    throw new InputError('invalid_input', `${spec.name} must list some of ${values.join(', ')}`, { field: spec.name, limit: values.join(' | ') });
  }
  return new Set(list as string[]);
}

/** A list of ids (streams); empty or not given: undefined, meaning every one. */
function stringList(v: unknown, name: string): ReadonlySet<string> | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s.length === 0 || s.length > 255)) {
    throw new InputError('invalid_input', `${name} must be a list of ids (non-empty strings)`, { field: name, limit: 'strings of 1 to 255 characters' });
  }
  return v.length > 0 ? new Set(v as string[]) : undefined;
}

/** Names for ids: an object of strings. */
function labelMap(v: unknown, name: string): ReadonlyMap<string, string> {
  const labels = new Map<string, string>();
  if (v === undefined) return labels;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new InputError('invalid_input', `${name} must be an object of id -> name`, { field: name, limit: 'an object of strings' });
  for (const [k, text] of Object.entries(v)) {
    if (typeof text !== 'string') throw new InputError('invalid_input', `every value of ${name} must be a string`, { field: `${name}.${k}`.slice(0, 80), limit: 'a string' });
    labels.set(k, text);
  }
  return labels;
}

function store(v: unknown): VisitorStore | undefined {
  if (v === undefined) return undefined;
  const s = v as Partial<VisitorStore>;
  if (!s || typeof s.load !== 'function' || typeof s.save !== 'function') throw new InputError('invalid_input', 'visitorStore must have load() and save()', { field: 'visitorStore', limit: '{ load(), save(document) }' });
  return s as VisitorStore;
}

function peopleStore(v: unknown): PeopleStore | undefined {
  if (v === undefined) return undefined;
  const s = v as Partial<PeopleStore>;
  if (!s || typeof s.load !== 'function' || typeof s.update !== 'function') throw new InputError('invalid_input', 'people must be a people store, with load() and update()', { field: 'people', limit: '{ load(), update(change) }' });
  return s as PeopleStore;
}

function id(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 256) throw new InputError('invalid_input', `${field} must be a non-empty id`, { field, limit: '1 to 256 characters' });
  return v;
}
