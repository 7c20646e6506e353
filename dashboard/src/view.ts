// What the tiles show, as pure functions of the messages and sizes: no DOM, no Vue.
import { liveBox, VERDICT_COLOURS, type LiveStill, type LiveTrack, type LiveTracks, type LiveVerdict, type SlimEvent } from '../../node-red/live-widget';

/** A width and a height in pixels. */
export interface Size {
  width: number;
  height: number;
}

/** Where a box goes on the page, in CSS pixels of its tile. */
export interface Placed {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The colour kind and the words of a box. */
export interface BoxView {
  kind: LiveVerdict;
  text: string;
  colour: string;
}

/** Where a face's box goes over a picture shown with object-fit: contain (letterboxing included); null when the box is not inside the picture. */
export function placeBox(location: unknown, picture: Size, shown: Size): Placed | null {
  const box = liveBox(location);
  if (!box || !(picture.width > 0) || !(picture.height > 0) || !(shown.width > 0) || !(shown.height > 0)) return null;
  // One pixel of slack: the service's boxes are right/bottom exclusive and may touch the edge.
  if (box.left < -1 || box.top < -1 || box.right > picture.width + 1 || box.bottom > picture.height + 1) return null;
  const scale = Math.min(shown.width / picture.width, shown.height / picture.height);
  const offsetX = (shown.width - picture.width * scale) / 2;
  const offsetY = (shown.height - picture.height * scale) / 2;
  return {
    left: offsetX + Math.max(0, box.left) * scale,
    top: offsetY + Math.max(0, box.top) * scale,
    width: (Math.min(picture.width, box.right) - Math.max(0, box.left)) * scale,
    height: (Math.min(picture.height, box.bottom) - Math.max(0, box.top)) * scale,
  };
}

function nameOf(e: { name?: string; label?: string | null }): string | null {
  if (typeof e.name === 'string' && e.name) return e.name;
  return typeof e.label === 'string' && e.label ? e.label : null;
}

function visitorText(id: string): string {
  return `visitor ${id.slice(0, 8)}`;
}

/** What a face event shows: its colour kind and its words; null for anything that is not a face event with a box. */
export function faceView(e: Partial<SlimEvent> | null | undefined): BoxView | null {
  if (!e || typeof e !== 'object' || typeof e.stream_id !== 'string' || !liveBox(e.location)) return null;
  if (e.event !== 'match' && e.event !== 'unknown' && e.event !== 'arrived') return null;
  const kind: LiveVerdict = e.event === 'match' || e.kind === 'person' ? 'person' : typeof e.visitor_id === 'string' ? 'visitor' : 'unknown';
  const text = kind === 'person' ? (nameOf(e) ?? 'known face') : kind === 'visitor' ? visitorText(e.visitor_id as string) : 'unknown';
  return { kind, text, colour: VERDICT_COLOURS[kind] };
}

/** What a tracked face shows: its verdict's colour, and the name, the visitor or the verdict in words. */
export function trackView(t: LiveTrack): BoxView {
  const text =
    t.verdict === 'person' ? (nameOf(t) ?? 'known face') : t.verdict === 'visitor' ? (typeof t.visitor_id === 'string' ? visitorText(t.visitor_id) : 'visitor') : t.verdict === 'unknown' ? 'unknown' : 'deciding';
  return { kind: t.verdict, text, colour: VERDICT_COLOURS[t.verdict] };
}

/** The words an arrival or departure shows on its tile; null for other events. */
export function presenceNote(e: Partial<SlimEvent> | null | undefined): string | null {
  if (!e || (e.event !== 'arrived' && e.event !== 'left') || typeof e.stream_id !== 'string') return null;
  const who = nameOf(e) ?? (typeof e.visitor_id === 'string' ? visitorText(e.visitor_id) : 'a stranger');
  return `${who} ${e.event === 'arrived' ? 'arrived' : 'left'}`;
}

/** How long from the picture to the box now: the event's own latency plus the time since it was made. */
export function lagMs(e: { latency_ms?: number; time?: string }, now: number): number {
  const own = typeof e.latency_ms === 'number' && Number.isFinite(e.latency_ms) ? e.latency_ms : 0;
  const made = typeof e.time === 'string' ? Date.parse(e.time) : Number.NaN;
  return Math.max(0, Math.round(own + (Number.isFinite(made) ? Math.max(0, now - made) : 0)));
}

/** The words a still shows while the video is not there yet: what it is and how old. */
export function stillAge(still: Pick<LiveStill, 'time'>, now: number): string {
  const made = Date.parse(still.time);
  if (!Number.isFinite(made)) return 'still';
  const s = Math.max(0, Math.round((now - made) / 1000));
  return s < 60 ? `still, ${s} s old` : s < 3600 ? `still, ${Math.floor(s / 60)} min old` : `still, ${Math.floor(s / 3600)} h old`;
}

/** A still as the page may show it (a JPEG or PNG data: URL with its size and time), or null. */
export function usableStill(value: unknown): LiveStill | null {
  if (typeof value !== 'object' || value === null) return null;
  const s = value as Record<string, unknown>;
  if (typeof s.stream_id !== 'string' || !s.stream_id || typeof s.src !== 'string' || !/^data:image\/(jpeg|png);base64,/.test(s.src) || typeof s.time !== 'string') return null;
  if (typeof s.width !== 'number' || typeof s.height !== 'number' || !(s.width > 0) || !(s.height > 0)) return null;
  return { stream_id: s.stream_id, src: s.src, time: s.time, width: s.width, height: s.height };
}

/** The stream ids or labels the settings keep (empty: all). */
export function wanted(text: unknown): string[] {
  return String(text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
}

/** The labels setting (JSON of stream id to name); anything else gives none. */
export function labelsOf(text: unknown): Record<string, string> {
  if (typeof text !== 'string' || !text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** True when a stream is one the settings keep, by id or by label. */
export function isWanted(keep: string[], streamId: string, label: string): boolean {
  return keep.length === 0 || keep.includes(streamId) || keep.includes(label);
}

/** A face's box as four edges, in the sampled frame's pixels. */
export interface Edges {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The most a box is carried ahead of its latest sample: a face that stops is overshot by at most this much of its motion. */
export const MAX_LEAD_MS = 1000;

/** Samples further apart than this (ms) tell nothing of a face's motion. */
const MOTION_WINDOW_MS = 3000;

/**
 * Where a tracked face will be `leadMs` after its latest sample (`now`, its frame made at `nowMs`),
 * on the line through its sample before (`before`, at `beforeMs`): the box keeps the latest size and
 * stays inside the picture. Without a usable sample before, the latest place itself. A box drawn
 * where the face was when it was sampled is a sample interval and the event's delay behind a moving
 * face by the time it is drawn; carried ahead, it is where the face is.
 */
export function leadLocation(before: Edges | undefined, beforeMs: number, now: Edges, nowMs: number, leadMs: number, picture: Size): Edges {
  const dt = nowMs - beforeMs;
  if (!before || !(dt > 0) || dt > MOTION_WINDOW_MS || !(leadMs > 0)) return now;
  const ahead = Math.min(leadMs, MAX_LEAD_MS) / dt;
  let dx = ((now.left + now.right - before.left - before.right) / 2) * ahead;
  let dy = ((now.top + now.bottom - before.top - before.bottom) / 2) * ahead;
  // Kept inside the picture (a box outside it is not drawn at all).
  dx = Math.min(Math.max(dx, -now.left), picture.width - now.right);
  dy = Math.min(Math.max(dy, -now.top), picture.height - now.bottom);
  if (!Number.isFinite(dx) || !Number.isFinite(dy)) return now;
  return { left: now.left + dx, top: now.top + dy, right: now.right + dx, bottom: now.bottom + dy };
}

/**
 * A `tracks` message's payload as the tile uses it, or null when it is not one. The node has slimmed
 * it already; the page only makes sure of the shape it reads (a track with another verdict or a box
 * that is not one is left out).
 */
export function tracksOf(payload: unknown): LiveTracks | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Partial<LiveTracks>;
  if (p.event !== 'tracks' || typeof p.stream_id !== 'string' || typeof p.frame_time !== 'string' || !Array.isArray(p.tracks)) return null;
  if (typeof p.width !== 'number' || typeof p.height !== 'number' || !(p.width > 0) || !(p.height > 0)) return null;
  const tracks = p.tracks.filter((t: Partial<LiveTrack> | null) => !!t && typeof t.track === 'number' && typeof t.verdict === 'string' && Object.hasOwn(VERDICT_COLOURS, t.verdict) && !!liveBox(t.location));
  return { ...(p as LiveTracks), tracks };
}
