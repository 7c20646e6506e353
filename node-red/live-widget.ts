/**
 * What the live view's server side shares with Dashboard 2.0 and with its browser component: the
 * socket event, where the component file is, and the face events cut down to what a box needs.
 */

/** The socket event a browser asks its ticket with and gets the answer on (the component uses the same name). */
export const LIVE_TICKET_EVENT = 'vision-streaming-live:ticket';

/**
 * Where Dashboard 2.0 finds the component: the widget package's "node-red-dashboard-2" block (a test
 * checks they agree). Dashboard 2.0 looks for third-party widgets only in the user directory's
 * dependencies named `node-red-dashboard-2-*`, so the component ships in a package of that name
 * (dashboard/ in this repository) and is served from its resources/ folder.
 */
export const WIDGET_SOURCE = Object.freeze({
  package: 'node-red-dashboard-2-vision-streaming',
  name: 'vision-streaming-live',
  src: 'vision-streaming-live.umd.js',
  component: 'VisionStreamingLive',
});

/** A dashboard socket as a widget's socket handler gets it. */
export interface TicketSocket {
  readonly id: string;
  /** False once the socket closed. */
  readonly connected?: boolean;
  emit(event: string, ...args: unknown[]): unknown;
  once?(event: 'disconnect', listener: () => void): unknown;
  off?(event: 'disconnect', listener: () => void): unknown;
  /** socket.io's per-packet middleware. */
  use?(fn: (packet: unknown[], next: (err?: Error) => void) => void): unknown;
}

/** The part of a Dashboard 2.0 ui-group a widget uses. */
export interface DashboardGroup {
  register(node: unknown, config: Record<string, unknown>, events: Record<string, unknown>): void;
  /** The group's ui-base, whose state store holds a widget's properties set at run time. */
  getBase?(): { stores?: { state?: { set(base: unknown, node: unknown, msg: unknown, prop: string, value: unknown): void } } } | undefined;
}

/**
 * Sets one of the widget's properties in Dashboard 2.0's state store, as its own widgets' properties
 * set at run time are kept: a page gets them with the dashboard's set-up each time it connects (no
 * message: nothing ties the value to one browser). A release without the store is passed by.
 */
export function setWidgetState(group: DashboardGroup, node: unknown, prop: string, value: unknown): void {
  const base = group.getBase?.();
  const store = base?.stores?.state;
  if (typeof store?.set === 'function') store.set(base, node, undefined, prop, value);
}

/** A face or presence event as the browsers get it: no pictures, only what a box or a note shows. */
export interface SlimEvent {
  event: 'match' | 'unknown' | 'arrived' | 'left';
  stream_id: string;
  stream_label?: string;
  location?: { left: number; top: number; right: number; bottom: number };
  name?: string;
  label?: string | null;
  kind?: string;
  person_id?: string;
  visitor_id?: string;
  face_id?: string;
  track?: number;
  score?: number | null;
  latency_ms?: number;
  time?: string;
}

const FACE_EVENTS = new Set(['match', 'unknown', 'arrived']);
const KEPT = ['stream_label', 'name', 'label', 'kind', 'person_id', 'visitor_id', 'face_id', 'track', 'score', 'latency_ms', 'time'] as const;
const KEPT_TYPES: Record<(typeof KEPT)[number], string> = {
  stream_label: 'string',
  name: 'string',
  label: 'string',
  kind: 'string',
  person_id: 'string',
  visitor_id: 'string',
  face_id: 'string',
  track: 'number',
  score: 'number',
  latency_ms: 'number',
  time: 'string',
};

/** The event of a face watch node's message payload, or undefined when it is not one a live view can show (no stream, no box). */
export function slimEvent(payload: unknown): SlimEvent | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const e = payload as Record<string, unknown>;
  const event = e.event;
  if (event !== 'match' && event !== 'unknown' && event !== 'arrived' && event !== 'left') return undefined;
  if (typeof e.stream_id !== 'string' || e.stream_id === '') return undefined;
  const out: SlimEvent = { event, stream_id: e.stream_id };
  if (FACE_EVENTS.has(event)) {
    const box = boxOf(e.location);
    if (!box) return undefined;
    out.location = box;
  }
  for (const key of KEPT) {
    const value = e[key];
    if (typeof value === KEPT_TYPES[key] && (typeof value !== 'number' || Number.isFinite(value))) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}

function boxOf(value: unknown): SlimEvent['location'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const b = value as Record<string, unknown>;
  const [left, top, right, bottom] = [b.left, b.top, b.right, b.bottom];
  if (![left, top, right, bottom].every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const box = { left: left as number, top: top as number, right: right as number, bottom: bottom as number };
  if (box.right <= box.left || box.bottom <= box.top || box.right <= 0 || box.bottom <= 0) return undefined;
  return box;
}

/**
 * The socket event a page asks each stream's latest still with, when the widget mounts:
 * `emit(LIVE_STILL_EVENT, widgetId, requestId)`, answered `emit(LIVE_STILL_EVENT, widgetId, requestId, LiveStill[])`
 * (the same bounds on the ids as the ticket request).
 */
export const LIVE_STILL_EVENT = 'vision-streaming-live:still';

/** Box colours by verdict: the node, its docs and the component use these. */
export const VERDICT_COLOURS = Object.freeze({ person: '#1b8a3a', visitor: '#e07b00', unknown: '#d32f2f', pending: '#607d8b' });

/** A verdict a box can show. */
export type LiveVerdict = keyof typeof VERDICT_COLOURS;

/** One tracked face as the pages get it (from the watch node's `tracks` output). */
export interface LiveTrack {
  track: number;
  location: { left: number; top: number; right: number; bottom: number };
  verdict: LiveVerdict;
  name?: string;
  label?: string | null;
  person_id?: string;
  visitor_id?: string;
}

/**
 * The faces tracked on a stream at one sample: msg `{ topic: 'tracks', payload }` to the pages. The
 * component keeps each box while its track is listed, moves it between samples, and drops it when a
 * later update of the same stream no longer lists it.
 */
export interface LiveTracks {
  event: 'tracks';
  stream_id: string;
  /** The sampled frame's arrival (ISO 8601). */
  frame_time: string;
  width: number;
  height: number;
  tracks: LiveTrack[];
}

/**
 * A stream's latest still, answered on LIVE_STILL_EVENT: shown in the tile at once, marked with its
 * age, until the video's first decoded frame.
 */
export interface LiveStill {
  stream_id: string;
  /** JPEG as a data: URL. */
  src: string;
  /** When the frame arrived (ISO 8601): the tile shows its age. */
  time: string;
  width: number;
  height: number;
}

/** The box check the node and the component share: four finite numbers, a positive size, right and bottom past the picture's origin; undefined otherwise. */
export function liveBox(value: unknown): LiveTrack['location'] | undefined {
  return boxOf(value);
}
