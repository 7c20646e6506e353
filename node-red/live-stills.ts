/**
 * The live view's tracks and stills: the watch node's tracks messages cut down to what a page draws
 * (no picture, lists and texts bounded), and each stream's latest still, kept per live node in a
 * bounded store and handed to a page that asks when its widget mounts.
 */
import type { LiveStill, LiveTrack, LiveTracks, LiveVerdict } from './live-widget';
import { slimEvent, VERDICT_COLOURS } from './live-widget';

/** More tracks than this on one sample is not what a watcher sends: the list is cut there. */
export const MAX_TRACKS = 64;
/** Longest id or name kept (a stream id, a person's name); longer ones are cut. */
const MAX_TEXT = 256;
/** Streams whose still a live node keeps; past it the one updated longest ago goes. */
export const MAX_STILL_STREAMS = 16;
/** A still larger than this is not kept (the watcher's are 640 px JPEGs, tens of kB). */
export const MAX_STILL_BYTES = 256 * 1024;
/** The stills a live node keeps, in all: past it the streams updated longest ago go. */
export const MAX_STILL_STORE_BYTES = 2 * 1024 * 1024;
/**
 * Still answers a live node gives at once, then per second, across every socket: each answer is up
 * to the store's size again (as base64) until the socket has written it.
 */
export const STILL_BURST = 5;
export const STILLS_PER_SECOND = 2;
/** A socket asking again sooner than this gets no answer. */
export const MIN_STILL_INTERVAL_MS = 1000;

const VERDICTS = new Set<string>(Object.keys(VERDICT_COLOURS));

/** A `tracks` payload as the pages get it, or undefined when it is not one (a track without a box or a known verdict is left out). */
export function slimTracks(payload: unknown): LiveTracks | undefined {
  if (!isRecord(payload) || payload.event !== 'tracks') return undefined;
  const streamId = text(payload.stream_id);
  const frameTime = text(payload.frame_time);
  const { width, height } = payload;
  if (!streamId || !frameTime || !positive(width) || !positive(height) || !Array.isArray(payload.tracks)) return undefined;
  const tracks: LiveTrack[] = [];
  for (const item of (payload.tracks as unknown[]).slice(0, MAX_TRACKS)) {
    if (!isRecord(item) || typeof item.track !== 'number' || !Number.isFinite(item.track)) continue;
    const location = box(item.location);
    if (!location || typeof item.verdict !== 'string' || !VERDICTS.has(item.verdict)) continue;
    const out: LiveTrack = { track: item.track, location, verdict: item.verdict as LiveVerdict };
    for (const key of ['name', 'person_id', 'visitor_id'] as const) {
      const v = text(item[key]);
      if (v) out[key] = v;
    }
    if (item.label === null) out.label = null;
    else if (text(item.label)) out.label = text(item.label);
    tracks.push(out);
  }
  return { event: 'tracks', stream_id: streamId, frame_time: frameTime, width, height, tracks };
}

/** One live node's latest still of each stream, bounded in streams and bytes. */
export class StillStore {
  readonly #stills = new Map<string, { jpeg: Buffer; time: string; width: number; height: number }>();
  readonly #limits: { streams: number; bytes: number };
  #bytes = 0;
  /** The answer as pages get it, made once per change (every page that asks gets the same). */
  #answer?: LiveStill[];

  constructor(limits: { streams: number; bytes: number } = { streams: MAX_STILL_STREAMS, bytes: MAX_STILL_STORE_BYTES }) {
    this.#limits = limits;
  }

  /** Keeps the still of a tracks message (msg.still beside a valid tracks payload); anything else is ignored. True when kept. */
  take(tracks: LiveTracks, still: unknown): still is Buffer {
    if (!Buffer.isBuffer(still) || still.length < 4 || still.length > MAX_STILL_BYTES || still[0] !== 0xff || still[1] !== 0xd8) return false;
    // Map order is the order of update: the first entry is the stream updated longest ago.
    this.#drop(tracks.stream_id);
    this.#stills.set(tracks.stream_id, { jpeg: Buffer.from(still), time: tracks.frame_time, width: tracks.width, height: tracks.height });
    this.#bytes += still.length;
    while (this.#stills.size > this.#limits.streams || this.#bytes > this.#limits.bytes) this.#drop(this.#stills.keys().next().value!);
    this.#answer = undefined;
    return true;
  }

  /** Each stream's latest still, as a page gets them. */
  list(): LiveStill[] {
    this.#answer ??= [...this.#stills].map(([stream_id, s]) => ({ stream_id, src: `data:image/jpeg;base64,${s.jpeg.toString('base64')}`, time: s.time, width: s.width, height: s.height }));
    return this.#answer;
  }

  /** Forgets every still (the room changed: they show another room). */
  clear(): void {
    this.#stills.clear();
    this.#bytes = 0;
    this.#answer = undefined;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  #drop(streamId: string): void {
    const old = this.#stills.get(streamId);
    if (!old) return;
    this.#bytes -= old.jpeg.length;
    this.#stills.delete(streamId);
  }

  /** Streams held. */
  get size(): number {
    return this.#stills.size;
  }
}

/** Width in pixels of the small copies of the stills that pages get with the dashboard's set-up. */
export const PREVIEW_WIDTH = 256;
/** Their JPEG quality (a picture for a moment, until the still itself comes). */
export const PREVIEW_QUALITY = 50;
/** A stream's small copy is made again at most this often. */
export const PREVIEW_EVERY_MS = 5_000;
/** Streams with a small copy, and their bytes in all: every page of the dashboard gets them each time it connects. */
export const MAX_PREVIEW_STREAMS = 4;
export const MAX_PREVIEW_BYTES = 48 * 1024;

/**
 * Small copies of the latest stills, which the live node puts in its widget's state in Dashboard 2.0:
 * a page gets them in the dashboard's set-up as it connects, so a tile draws a picture the moment it
 * mounts, before its socket has asked for anything (the still itself replaces it a moment later).
 * Few and small, because every page of the dashboard gets them with every connection. One copy is
 * made at a time; meanwhile each stream's latest still waits.
 */
export class StillPreviews {
  readonly #store = new StillStore({ streams: MAX_PREVIEW_STREAMS, bytes: MAX_PREVIEW_BYTES });
  /** When each stream's copy was last begun. */
  readonly #made = new Map<string, number>();
  readonly #publish: (stills: LiveStill[]) => void;
  readonly #scale: (jpeg: Buffer) => Promise<Buffer>;
  /** Each stream's latest still waiting for its copy, in the order they came. */
  readonly #waiting = new Map<string, { tracks: LiveTracks; still: Buffer }>();
  #busy = false;
  /** Counts clear(): a copy begun before one is not kept. */
  #generation = 0;

  /** `publish` gets the copies as pages should get them; `scale` makes one copy (PREVIEW_WIDTH wide). */
  constructor(publish: (stills: LiveStill[]) => void, scale: (jpeg: Buffer) => Promise<Buffer>) {
    this.#publish = publish;
    this.#scale = scale;
  }

  /** A still the live node kept: copied when its stream's copy is older than PREVIEW_EVERY_MS. */
  offer(tracks: LiveTracks, still: Buffer): void {
    const now = Date.now();
    const last = this.#made.get(tracks.stream_id);
    if (last !== undefined && now - last < PREVIEW_EVERY_MS) return;
    // A camera that joins again is a new stream: times past the interval tell nothing, and go.
    if (this.#made.size > MAX_STILL_STREAMS) for (const [stream, at] of this.#made) if (now - at >= PREVIEW_EVERY_MS) this.#made.delete(stream);
    this.#waiting.delete(tracks.stream_id);
    this.#waiting.set(tracks.stream_id, { tracks, still });
    void this.#next();
  }

  /** Forgets every copy, and tells the pages so (the room changed, or the node closes). */
  clear(): void {
    this.#generation++;
    this.#waiting.clear();
    this.#made.clear();
    this.#store.clear();
    this.#publish([]);
  }

  async #next(): Promise<void> {
    const first = this.#waiting.entries().next();
    if (this.#busy || first.done) return;
    const [stream, { tracks, still }] = first.value;
    this.#waiting.delete(stream);
    const generation = this.#generation;
    this.#busy = true;
    this.#made.set(tracks.stream_id, Date.now());
    try {
      const small = await this.#scale(still);
      if (generation === this.#generation && this.#store.take(tracks, small)) this.#publish(this.#store.list());
    } catch {
      // A still that cannot be scaled gets no copy: the page gets the still itself as it asks.
    } finally {
      this.#busy = false;
      void this.#next();
    }
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v.slice(0, MAX_TEXT) : undefined;
}

function positive(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0;
}

/** The node's one box check (slimEvent's): a box the pages draw passes the rule a face event's does. */
function box(v: unknown): LiveTrack['location'] | undefined {
  return slimEvent({ event: 'arrived', stream_id: '-', location: v })?.location;
}
