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
  #bytes = 0;
  /** The answer as pages get it, made once per change (every page that asks gets the same). */
  #answer?: LiveStill[];

  /** Keeps the still of a tracks message (msg.still beside a valid tracks payload); anything else is ignored. */
  take(tracks: LiveTracks, still: unknown): void {
    if (!Buffer.isBuffer(still) || still.length < 4 || still.length > MAX_STILL_BYTES || still[0] !== 0xff || still[1] !== 0xd8) return;
    // Map order is the order of update: the first entry is the stream updated longest ago.
    this.#drop(tracks.stream_id);
    this.#stills.set(tracks.stream_id, { jpeg: Buffer.from(still), time: tracks.frame_time, width: tracks.width, height: tracks.height });
    this.#bytes += still.length;
    while (this.#stills.size > MAX_STILL_STREAMS || this.#bytes > MAX_STILL_STORE_BYTES) this.#drop(this.#stills.keys().next().value!);
    this.#answer = undefined;
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
