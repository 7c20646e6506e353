import { InputError } from '../errors';
import type { VideoCodec } from '../frames/types';
import { StreamingClient, type StreamingClientOptions } from '../streaming';
import type { VisionClient, VisionClientOptions } from '../vision';
import type { WatchEventName } from './events';
import { optionSpec, rangeText, type WatchOptionName } from './option-table';
import { daysToMs, type VisitorStore } from './visitors';

/** Options of a FaceWatcher. */
export interface WatchOptions {
  /** A vision client (kept open by the watcher's owner) or options to build one (closed on stop). */
  vision: VisionClientOptions | VisionClient;
  /** A streaming client (kept open) or options to build one (closed on stop). */
  streaming: StreamingClientOptions | StreamingClient;
  roomId: string;
  /** The face collection to compare with. */
  collectionId: string;
  /** Least score (0..1) of the best face for a match; below it a face is unknown. Default 0.7. */
  threshold?: number;
  /** One match per face_id within this many seconds. Default 60. */
  cooldownSeconds?: number;
  /** Whether the cooldown is kept per stream (default) or for the room as a whole. */
  cooldownScope?: 'stream' | 'room';
  /** Samples per second per stream (0.1..30). Default 2. */
  fps?: number;
  /** Mean brightness difference (0..255) of a small grey copy below which a sample is not analysed. Default 4; 0 analyses every sample. */
  changeThreshold?: number;
  /** A face whose shorter side has fewer pixels is not scaled up and compared (counted). Default 40. */
  minFaceSize?: number;
  /** API calls per second (token bucket; samples beyond it are skipped and counted). Default 5. */
  budgetPerSecond?: number;
  /** Names for ids: a face_id (events' `label`) or a stream id (events' `stream_label`). */
  labels?: Record<string, string>;
  /** Watch only these stream ids (the publishers' client_ids); default every stream of the room. */
  streams?: string[];
  /** Names (labels) or face ids whose match, arrived and left events are not emitted (counted in stats as muted). */
  ignore?: string[];
  /** Events to emit; default all five. */
  events?: WatchEventName[];
  /** Decoder backend; default 'auto' (ffmpeg when found, else wasm). */
  decoder?: 'auto' | 'ffmpeg' | 'wasm';
  /** ffmpeg binary for the ffmpeg backend (else found as the publisher finds it). */
  ffmpegPath?: string;
  /** The codec the watcher asks the room for. Default VP8. */
  codec?: VideoCodec;
  /** Adds `snapshot_boxes` (the frame with faces boxed and labelled) to face events. */
  drawBoxes?: boolean;
  /**
   * The package's werift speed-ups on this watcher's receive path (default true). In a worker
   * thread (the default) it holds for this watcher only; with `session.thread: 'main'`, false turns
   * them off for the whole process.
   */
  weriftSpeedups?: boolean;
  /** Bind WebRTC to 127.0.0.1 only; default: when the streaming address is on this machine (a local sandbox). */
  loopbackOnly?: boolean;
  /** A known track is compared again after this many seconds. Default 30. */
  recheckSeconds?: number;
  /** max_results of each compare call (1..1000). Default 3. */
  maxResults?: number;
  /** How long named streams may take to appear before a status names them missing, seconds. Default 10. */
  streamWaitSeconds?: number;
  /** First pause after a spent quota, seconds (doubles while it stays spent, up to 16x). Default 60. */
  quotaPauseSeconds?: number;
  /** Enrol each new stranger's face in the collection, so one who comes back keeps one visitor_id. Default false. */
  rememberVisitors?: boolean;
  /** Visitors not seen for this many days are removed from the collection (1..3650). Default 30. */
  visitorRetentionDays?: number;
  /** Most visitors kept; past it the one seen least recently is removed (1..1000). Default 200. */
  maxVisitors?: number;
  /** Where the visitors the watcher enrolled are kept between runs; default memory. */
  visitorStore?: VisitorStore;
  /** A person who had an event and is not seen on any stream for this long has left (a `left` event), seconds. Default 30. */
  leftAfterSeconds?: number;
  /** JPEG quality of snapshots and crops (1..100). Default 85. */
  jpegQuality?: number;
  /**
   * Signaling tweaks passed to the session (rejoin policy, timeouts), and where the WebRTC receive
   * path runs: `thread: 'worker'` (default) a worker thread of its own, which leaves the host's
   * event loop and the host's own werift alone; 'main' this thread (less memory, see the streaming README).
   */
  session?: { rejoin?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number }; timeouts?: Record<string, number>; thread?: 'main' | 'worker' };
}

/** Options with defaults applied and checked. */
export interface ResolvedWatchOptions {
  roomId: string;
  collectionId: string;
  threshold: number;
  cooldownMs: number;
  cooldownScope: 'stream' | 'room';
  fps: number;
  changeThreshold: number;
  minFaceSize: number;
  budgetPerSecond: number;
  labels: ReadonlyMap<string, string>;
  streams?: ReadonlySet<string>;
  ignore: ReadonlySet<string>;
  events: ReadonlySet<WatchEventName>;
  decoder: 'auto' | 'ffmpeg' | 'wasm';
  ffmpegPath?: string;
  codec: VideoCodec;
  drawBoxes: boolean;
  weriftSpeedups: boolean;
  loopbackOnly: boolean;
  recheckMs: number;
  maxResults: number;
  streamWaitMs: number;
  quotaPauseMs: number;
  jpegQuality: number;
  leftAfterMs: number;
  rememberVisitors: boolean;
  visitorRetentionMs: number;
  maxVisitors: number;
  visitorStore?: VisitorStore;
  session?: WatchOptions['session'];
}

const EVENT_NAMES: readonly WatchEventName[] = ['match', 'unknown', 'arrived', 'left', 'status', 'error'];

/** Checks every option up front; a bad one throws an InputError naming it and its limit. */
export function resolveWatchOptions(o: WatchOptions): ResolvedWatchOptions {
  if (!o || typeof o !== 'object') throw new InputError('options', 'FaceWatcher needs an options object', 'an object');
  if (!o.vision || typeof o.vision !== 'object') throw new InputError('vision', 'vision must be a VisionClient or its options', 'an object');
  if (!o.streaming || typeof o.streaming !== 'object') throw new InputError('streaming', 'streaming must be a StreamingClient or its options', 'an object');
  const labels = new Map<string, string>();
  if (o.labels !== undefined) {
    if (!o.labels || typeof o.labels !== 'object' || Array.isArray(o.labels)) throw new InputError('labels', 'labels must be an object of id -> name', 'an object of strings');
    for (const [k, v] of Object.entries(o.labels)) {
      if (typeof v !== 'string') throw new InputError(`labels.${k}`.slice(0, 80), 'each label must be a string', 'a string');
      labels.set(k, v);
    }
  }
  let streams: Set<string> | undefined;
  if (o.streams !== undefined) {
    if (!Array.isArray(o.streams) || o.streams.some((s) => typeof s !== 'string' || s.length === 0 || s.length > 255)) {
      throw new InputError('streams', 'streams must be a list of stream ids (non-empty strings)', 'strings of 1 to 255 characters');
    }
    if (o.streams.length > 0) streams = new Set(o.streams);
  }
  if (o.ignore !== undefined && (!Array.isArray(o.ignore) || o.ignore.some((s) => typeof s !== 'string' || s.length === 0 || s.length > 255))) {
    throw new InputError('ignore', 'ignore must be a list of names or face ids (non-empty strings)', 'strings of 1 to 255 characters');
  }
  const events = o.events === undefined ? EVENT_NAMES : o.events;
  if (!Array.isArray(events) || events.some((e) => !EVENT_NAMES.includes(e))) {
    throw new InputError('events', `events must list some of ${EVENT_NAMES.join(', ')}`, EVENT_NAMES.join(' | '));
  }
  if (o.ffmpegPath !== undefined && (typeof o.ffmpegPath !== 'string' || o.ffmpegPath === '')) throw new InputError('ffmpegPath', 'ffmpegPath must be a path', 'a non-empty string');
  return {
    roomId: id(o.roomId, 'roomId'),
    collectionId: id(o.collectionId, 'collectionId'),
    threshold: num(o.threshold, 'threshold'),
    cooldownMs: num(o.cooldownSeconds, 'cooldownSeconds') * 1000,
    cooldownScope: choice(o.cooldownScope, 'cooldownScope'),
    fps: num(o.fps, 'fps'),
    changeThreshold: num(o.changeThreshold, 'changeThreshold'),
    minFaceSize: num(o.minFaceSize, 'minFaceSize'),
    budgetPerSecond: num(o.budgetPerSecond, 'budgetPerSecond'),
    labels,
    streams,
    ignore: new Set(o.ignore ?? []),
    events: new Set(events),
    decoder: choice(o.decoder, 'decoder'),
    ffmpegPath: o.ffmpegPath,
    codec: choice(o.codec, 'codec'),
    drawBoxes: o.drawBoxes === undefined ? optionSpec('drawBoxes').default === true : o.drawBoxes === true,
    weriftSpeedups: o.weriftSpeedups === undefined ? optionSpec('weriftSpeedups').default === true : o.weriftSpeedups === true,
    loopbackOnly: o.loopbackOnly ?? isLoopbackService(o.streaming),
    recheckMs: num(o.recheckSeconds, 'recheckSeconds') * 1000,
    maxResults: Math.round(num(o.maxResults, 'maxResults')),
    streamWaitMs: num(o.streamWaitSeconds, 'streamWaitSeconds') * 1000,
    quotaPauseMs: num(o.quotaPauseSeconds, 'quotaPauseSeconds') * 1000,
    jpegQuality: Math.round(num(o.jpegQuality, 'jpegQuality')),
    leftAfterMs: num(o.leftAfterSeconds, 'leftAfterSeconds') * 1000,
    rememberVisitors: o.rememberVisitors === undefined ? optionSpec('rememberVisitors').default === true : o.rememberVisitors === true,
    visitorRetentionMs: daysToMs(num(o.visitorRetentionDays, 'visitorRetentionDays')),
    maxVisitors: Math.round(num(o.maxVisitors, 'maxVisitors')),
    visitorStore: store(o.visitorStore),
    session: o.session,
  };
}

/** A number option, its default and range read from the table. */
function num(v: unknown, name: WatchOptionName): number {
  const spec = optionSpec(name);
  if (v === undefined) return spec.default as number;
  const min = spec.min ?? Number.NEGATIVE_INFINITY;
  const max = spec.max ?? Number.POSITIVE_INFINITY;
  const limit = rangeText(spec);
  if (typeof v !== 'number' || Number.isNaN(v) || v < min || v > max) {
    throw new InputError(name, `${name} must be a number in ${limit}, got ${JSON.stringify(v)?.slice(0, 40)}`, limit);
  }
  return v;
}

/** A choice option, its default and values read from the table. */
function choice<T extends string>(v: T | undefined, name: WatchOptionName): T {
  const spec = optionSpec(name);
  if (v === undefined) return spec.default as T;
  const values = (spec.choices ?? []).map((c) => c.value);
  if (!values.includes(v)) {
    const limit = values.map((x) => `'${x}'`).join(' | ');
    throw new InputError(name, `${name} must be one of ${values.join(', ')}, got ${JSON.stringify(v)?.slice(0, 40)}`, limit);
  }
  return v;
}

function store(v: unknown): VisitorStore | undefined {
  if (v === undefined) return undefined;
  const s = v as Partial<VisitorStore>;
  if (!s || typeof s.load !== 'function' || typeof s.save !== 'function') throw new InputError('visitorStore', 'visitorStore must have load() and save()', '{ load(), save(document) }');
  return s as VisitorStore;
}

function id(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 256) throw new InputError(field, `${field} must be a non-empty id`, '1 to 256 characters');
  return v;
}

/**
 * A streaming service on this machine (the sandbox) is reached over loopback only, so WebRTC
 * offers it no other address; the address tells, whatever host runs the watcher.
 */
function isLoopbackService(streaming: WatchOptions['streaming']): boolean {
  const url = streaming instanceof StreamingClient ? streaming.sfuUrl : streaming.sfuUrl;
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}
