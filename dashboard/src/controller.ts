// The live view's behaviour in one page: tickets and stills over the dashboard's socket, one room
// join at a time (RoomTransport) watched until it plays, and the tiles with their boxes and notes.
// The component renders `state` (Vue's reactive object) and hands over its elements; this file has
// no template and no Vue import, so the type check covers all of it.
import { LIVE_STILL_EVENT, LIVE_TICKET_EVENT, type LiveStill, type LiveTracks, type SlimEvent } from '../../node-red/live-widget';
import { canPlay, RoomTransport, type RoomTicket } from './transport';
import { faceView, isWanted, labelsOf, lagMs, leadLocation, presenceNote, tracksOf, trackView, usableStill, wanted, type BoxView, type Edges, type Size } from './view';

/** How long a face event's box stays when no `tracks` reach its tile ("gone after a moment"). */
const BOX_MS = 1500;
/** How long an arrival or departure stays on its tile. */
const NOTE_MS = 6000;
/** A ticket request that gets no answer in this time is asked again. */
const TICKET_WAIT_MS = 10_000;
/** A join that has not played within this time is dropped and made again (doubling after each miss, up to JOIN_WAIT_MAX_MS). */
export const JOIN_WAIT_MS = 3000;
const JOIN_WAIT_MAX_MS = 15_000;
/** The longest a join waits for the frame that shows a still (a hidden tab draws none). */
const PAINT_WAIT_MS = 100;
/** A tile that got `tracks` this recently draws its boxes from them, not from face events. */
const TRACKS_FRESH_MS = 5000;
/** Boxes move to a sample's place over the time since the sample before, within these bounds. */
const MOVE_MIN_MS = 100;
const MOVE_MAX_MS = 1500;

/** A box of a tracked face: kept while its track is listed. */
export interface TrackBox {
  key: string;
  view: BoxView;
  location: { left: number; top: number; right: number; bottom: number };
  /** The sampled frame's size the location is in. */
  picture: Size;
  lag: number;
  /** How long the box takes to move to this place (the sample interval). */
  moveMs: number;
}

/** A box of one face event (when no tracks reach the tile): gone after BOX_MS. */
export interface EventBox {
  key: string;
  serial: number;
  view: BoxView;
  location: { left: number; top: number; right: number; bottom: number };
  lag: number;
  shownAt: number;
}

/** One camera's tile. */
export interface Tile {
  streamId: string;
  label: string;
  /** The room's stream while joined (not reactive: Vue must not wrap it). */
  stream: MediaStream | null;
  /** The latest still, shown until the video's first decoded frame (and again while a join is made again). */
  still: LiveStill | null;
  /** True once the video showed a decoded frame of the current stream. */
  playing: boolean;
  /** The video's size once known. */
  picture: Size;
  /** The tile's picture area on the page. */
  shown: Size;
  tracks: TrackBox[];
  /** When the last `tracks` of this stream came (0: never). */
  tracksAt: number;
  boxes: EventBox[];
  notes: { key: number; text: string }[];
  seq: number;
}

/** What the component renders. */
export interface LiveState {
  phase: 'starting' | 'ticket' | 'joining' | 'playing' | 'paused' | 'error';
  message: string;
  problem: boolean;
  ignored: number;
  tiles: Tile[];
  /** The page's clock, ticking each second while a still is shown (its age). */
  now: number;
}

/** The dashboard's socket as a widget gets it. */
export interface WidgetSocket {
  on(event: string, fn: (...args: unknown[]) => void): unknown;
  off(event: string, fn: (...args: unknown[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
}

/** The node's settings as the widget gets them. */
export interface WidgetProps {
  streams?: string;
  labels?: string;
  faces?: boolean;
  tileHeight?: number | string;
  /** Small copies of the stills, which the node keeps in the widget's state: a page has them with the dashboard's set-up. */
  stills?: unknown;
}

type TicketAnswer = ({ ok: true; serverTime?: number } & RoomTicket) | { ok: false; message?: string; retryAfterMs?: number };

/** A fresh state for the component to make reactive. */
export function initialState(): LiveState {
  return { phase: 'starting', message: '', problem: false, ignored: 0, tiles: [], now: Date.now() };
}

/** The live view of one widget in one page; it owns its socket listeners, timers, observer and room join, and unmount() ends them all. */
export class LiveController {
  readonly #id: string;
  readonly #socket: WidgetSocket;
  readonly #props: () => WidgetProps;
  readonly #state: LiveState;
  readonly #raw: <T extends object>(value: T) => T;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #labels = new Map<string, string>();
  /** Each stream's tracked faces at their latest sample (place and frame time), for their motion. */
  readonly #sampled = new Map<string, Map<number, { location: Edges; frameMs: number }>>();
  readonly #listeners: [string, (...args: unknown[]) => void][];
  #transport: RoomTransport | null = null;
  #watch: ReturnType<typeof setTimeout> | undefined;
  #joinWaitMs = JOIN_WAIT_MS;
  #request = 0;
  #pending = 0;
  #stillRequest = 0;
  /** Per stream, the latest still being decoded before it replaces the one shown (an older one that finishes later is dropped). */
  readonly #stillTurns = new Map<string, number>();
  #attempt = 0;
  #retrying = false;
  #stopped = false;
  #clockOffset = 0;
  #ageClock: ReturnType<typeof setInterval> | undefined;
  #resize: ResizeObserver | undefined;
  readonly #observed = new WeakSet<Element>();

  /** `state` is the component's reactive object; `raw` is Vue's markRaw (a MediaStream must stay unwrapped). */
  constructor(opts: { id: string; socket: WidgetSocket; props: () => WidgetProps; state: LiveState; raw: <T extends object>(value: T) => T }) {
    this.#id = opts.id;
    this.#socket = opts.socket;
    this.#props = opts.props;
    this.#state = opts.state;
    this.#raw = opts.raw;
    this.#listeners = [
      [LIVE_TICKET_EVENT, (id, request, answer) => id === this.#id && this.#onTicket(request, answer)],
      [LIVE_STILL_EVENT, (id, request, stills) => id === this.#id && this.#onStills(request, stills)],
      [`msg-input:${this.#id}`, (msg) => this.#onInput(msg)],
    ];
    // A picture at once: the copies came with the dashboard's set-up, before the socket asks anything.
    this.#takeStills(opts.props().stills, false);
  }

  /** Starts listening, asks the stills and a ticket. */
  mount(): void {
    for (const [event, fn] of this.#listeners) this.#socket.on(event, fn);
    document.addEventListener('visibilitychange', this.#onVisibility);
    if (typeof ResizeObserver !== 'undefined') {
      this.#resize = new ResizeObserver((entries) => {
        for (const entry of entries) {
          const tile = this.#tile((entry.target as HTMLElement).dataset.stream ?? '');
          if (tile) tile.shown = { width: entry.contentRect.width, height: entry.contentRect.height };
        }
      });
    }
    this.#ageClock = setInterval(() => {
      if (this.#state.tiles.some((t) => t.still && !t.playing)) this.#state.now = Date.now();
    }, 1000);
    this.#askStills();
    this.#start();
  }

  /** Ends everything this controller started; idempotent. */
  unmount(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const [event, fn] of this.#listeners) this.#socket.off(event, fn);
    document.removeEventListener('visibilitychange', this.#onVisibility);
    this.#resize?.disconnect();
    clearInterval(this.#ageClock);
    this.#leave(false);
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  /** The component's video element of a tile (null when it goes): plays the tile's stream and reports its first decoded frame. */
  attachVideo(el: HTMLVideoElement | null, streamId: string): void {
    const tile = this.#tile(streamId);
    if (!el || !tile) return;
    const stream = tile.stream;
    if (el.srcObject === stream) return;
    el.srcObject = stream;
    if (!stream) return;
    el.muted = true;
    const sized = (): void => {
      const t = this.#tile(streamId);
      if (t && t.stream === stream && el.videoWidth > 0) t.picture = { width: el.videoWidth, height: el.videoHeight };
    };
    el.onloadedmetadata = sized;
    el.onresize = sized;
    const shown = (): void => {
      sized();
      this.#played(streamId, stream);
    };
    // The first decoded frame: requestVideoFrameCallback where the browser has it, else 'playing' with a size.
    if (typeof el.requestVideoFrameCallback === 'function') el.requestVideoFrameCallback(shown);
    else el.addEventListener('playing', function onPlaying() {
      if (el.videoWidth > 0) {
        el.removeEventListener('playing', onPlaying);
        shown();
      }
    });
    el.play().catch(() => undefined);
  }

  /** The component's picture area of a tile: its size places the boxes. */
  observeFrame(el: HTMLElement | null): void {
    if (!el || !this.#resize || this.#observed.has(el)) return;
    this.#observed.add(el);
    this.#resize.observe(el);
  }

  #tile(streamId: string): Tile | undefined {
    return this.#state.tiles.find((t) => t.streamId === streamId);
  }

  #later(ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
    return t;
  }

  #say(text: string, problem = false): void {
    this.#state.message = text;
    this.#state.problem = problem;
  }

  #labelOf(streamId: string): string {
    return labelsOf(this.#props().labels)[streamId] ?? this.#labels.get(streamId) ?? `camera ${streamId.slice(0, 8)}`;
  }

  #newTile(streamId: string, label: string): Tile {
    this.#state.tiles.push({ streamId, label, stream: null, still: null, playing: false, picture: { width: 0, height: 0 }, shown: { width: 0, height: 0 }, tracks: [], tracksAt: 0, boxes: [], notes: [], seq: 0 });
    return this.#tile(streamId) as Tile;
  }

  readonly #onVisibility = (): void => {
    if (document.hidden) this.#pause();
    else this.#start();
  };

  #askStills(): void {
    this.#stillRequest++;
    this.#socket.emit(LIVE_STILL_EVENT, this.#id, this.#stillRequest);
  }

  #onStills(request: unknown, stills: unknown): void {
    if (request !== this.#stillRequest || this.#stopped || this.#state.phase === 'paused') return;
    this.#takeStills(stills, true);
  }

  /**
   * Shows stills on the tiles not playing yet; a copy (`replace` false) only where a tile has none. A
   * still that replaces one shown is decoded first: the tile keeps its picture until the new one can
   * be drawn, instead of losing it while the larger one loads.
   */
  #takeStills(stills: unknown, replace: boolean): void {
    if (!Array.isArray(stills)) return;
    const keep = wanted(this.#props().streams);
    for (const item of stills) {
      const still = usableStill(item);
      if (!still) continue;
      const label = this.#labelOf(still.stream_id);
      if (!isWanted(keep, still.stream_id, label)) continue;
      const tile = this.#tile(still.stream_id) ?? this.#newTile(still.stream_id, label);
      if (tile.playing || (tile.still && !replace)) continue;
      if (!tile.still || typeof Image === 'undefined') {
        tile.still = still;
        continue;
      }
      const turn = (this.#stillTurns.get(still.stream_id) ?? 0) + 1;
      this.#stillTurns.set(still.stream_id, turn);
      const decoded = new Image();
      decoded.src = still.src;
      decoded.decode().then(
        () => {
          const now = this.#tile(still.stream_id);
          if (!this.#stopped && now && !now.playing && this.#stillTurns.get(still.stream_id) === turn) now.still = still;
        },
        () => undefined,
      );
    }
    this.#state.now = Date.now();
  }

  /** Asks Node-RED for a ticket of this page's own (a hidden tab waits until it is shown). */
  #start(): void {
    if (this.#stopped) return;
    if (document.hidden) return this.#pause();
    if (this.#transport || this.#pending) return;
    const request = ++this.#request;
    this.#pending = request;
    this.#state.phase = 'ticket';
    this.#later(TICKET_WAIT_MS, () => {
      if (this.#pending !== request) return;
      this.#pending = 0;
      this.#say('Node-RED did not answer the ticket request; asking again.', true);
      this.#retry();
    });
    this.#socket.emit(LIVE_TICKET_EVENT, this.#id, request);
  }

  #onTicket(request: unknown, answer: unknown): void {
    if (this.#stopped || request !== this.#pending) return;
    this.#pending = 0;
    const a = answer as TicketAnswer | null;
    if (!a || a.ok !== true) {
      const refused = a && a.ok === false ? a : undefined;
      this.#say(refused?.message || 'no ticket', true);
      this.#state.phase = 'error';
      this.#retry(refused?.retryAfterMs);
      return;
    }
    // Events carry Node-RED's time: a page on a machine whose clock is off still shows the right lag.
    if (typeof a.serverTime === 'number') this.#clockOffset = a.serverTime - Date.now();
    // The picture first: the page's first use of WebRTC (the codec check, the connection) holds its main
    // thread for tens of ms, which would keep a still from being painted until it is done.
    if (!this.#state.tiles.some((t) => t.still && !t.playing)) return this.#join(a);
    const asked = this.#request;
    // Dropped if the page paused, switched room or asked again meanwhile.
    this.#afterPaint(() => !this.#stopped && this.#request === asked && this.#state.phase === 'ticket' && this.#join(a));
  }

  /** Runs `fn` once the page has painted its next frame (or after PAINT_WAIT_MS, in a tab that draws no frames). */
  #afterPaint(fn: () => void): void {
    let done = false;
    const once = (): void => {
      if (done) return;
      done = true;
      fn();
    };
    // A timer set in the frame's callback runs after that frame is painted.
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => this.#later(0, once));
    this.#later(PAINT_WAIT_MS, once);
  }

  #join(ticket: RoomTicket): void {
    if (!canPlay(ticket.codec)) {
      const instead = ticket.codec === 'VP8' ? 'H264' : 'VP8';
      this.#say(`This browser cannot play ${ticket.codec}: publish the cameras as ${instead} (the camera node and the publish command can encode it), and set the live view to ${instead}.`, true);
      this.#state.phase = 'error';
      return;
    }
    this.#state.phase = 'joining';
    const transport = new RoomTransport(ticket, {
      streams: () => this.#transport === transport && this.#syncTiles(),
      connected: () => {
        if (this.#transport !== transport) return;
        this.#attempt = 0;
        this.#syncTiles();
        if (this.#hasPlayed()) this.#joined();
      },
      ended: (why) => {
        if (this.#transport !== transport) return;
        this.#rejoin(why);
      },
    });
    this.#transport = transport;
    const waitMs = this.#joinWaitMs;
    // A join the room never completes (an offer left unanswered, a first frame that never comes) is not waited out: it is made again.
    this.#watch = this.#later(waitMs, () => {
      if (this.#transport !== transport || this.#hasPlayed()) return;
      this.#joinWaitMs = Math.min(JOIN_WAIT_MAX_MS, waitMs * 2);
      this.#leave(true);
      this.#say(`No picture within ${waitMs / 1000} s; joining again.`, true);
      this.#askStills();
      this.#retry(0);
    });
    transport.open();
  }

  /** True when the current join plays: connected, and a picture on some tile of it (or no camera to show). */
  #hasPlayed(): boolean {
    const transport = this.#transport;
    if (!transport?.connected) return false;
    const joined = this.#state.tiles.filter((t) => t.stream);
    return joined.length === 0 || joined.some((t) => t.playing);
  }

  #joined(): void {
    clearTimeout(this.#watch);
    this.#timers.delete(this.#watch as ReturnType<typeof setTimeout>);
    this.#joinWaitMs = JOIN_WAIT_MS;
    this.#state.phase = 'playing';
    if (this.#state.tiles.length === 0) this.#say('No camera is publishing into this room now.');
    else this.#say('');
  }

  #played(streamId: string, stream: MediaStream): void {
    const tile = this.#tile(streamId);
    if (!tile || tile.stream !== stream) return;
    // The still stays behind the video: a join made again shows it (with its age) rather than a black tile.
    tile.playing = true;
    if (this.#state.phase !== 'playing' && this.#hasPlayed()) this.#joined();
  }

  /** One tile per stream the room plays now, plus the tiles still waiting for theirs (a still shown, or the last join's tile) until the join connects. */
  #syncTiles(): void {
    const transport = this.#transport;
    if (!transport) return;
    const keep = wanted(this.#props().streams);
    const now = transport.streams().filter((s) => isWanted(keep, s.streamId, this.#labelOf(s.streamId)));
    for (const s of now) {
      const tile = this.#tile(s.streamId) ?? this.#newTile(s.streamId, this.#labelOf(s.streamId));
      tile.label = this.#labelOf(s.streamId);
      if (tile.stream !== s.stream) {
        tile.stream = this.#raw(s.stream);
        tile.playing = false;
      }
    }
    const ids = new Set(now.map((s) => s.streamId));
    // Once connected the room has told every stream it plays: a tile of another one goes (its camera left).
    this.#state.tiles = this.#state.tiles.filter((t) => ids.has(t.streamId) || (!transport.connected && !t.stream));
    if (transport.connected && this.#state.phase === 'playing') {
      if (this.#state.tiles.length === 0) this.#say('No camera is publishing into this room now.');
      else if (!this.#state.problem) this.#say('');
    }
  }

  /** Ends the join; the tiles stay (their stills or an empty frame with the message) when the page joins again at once. */
  #leave(keepTiles: boolean): void {
    const transport = this.#transport;
    this.#transport = null;
    clearTimeout(this.#watch);
    transport?.close();
    if (!keepTiles) {
      this.#state.tiles = [];
      this.#sampled.clear();
      return;
    }
    for (const tile of this.#state.tiles) {
      tile.stream = null;
      tile.playing = false;
    }
  }

  #rejoin(why: string): void {
    this.#leave(true);
    this.#say(why, true);
    // The tiles show the newest stills while the page joins again.
    this.#askStills();
    this.#retry();
  }

  /** Asks again with a fresh ticket after a growing pause (0.5 s doubling to 15 s), or after `afterMs`. */
  #retry(afterMs?: number): void {
    if (this.#stopped || this.#retrying) return;
    this.#retrying = true;
    const delay = typeof afterMs === 'number' ? afterMs : Math.min(15_000, 500 * 2 ** this.#attempt);
    this.#attempt++;
    this.#later(delay, () => {
      this.#retrying = false;
      this.#start();
    });
  }

  /** A hidden tab downloads nothing: the join ends until the tab is shown again. */
  #pause(): void {
    this.#pending = 0;
    this.#leave(false);
    this.#state.phase = 'paused';
    this.#say('Paused while the page is hidden.');
  }

  #onInput(msg: unknown): void {
    if (!msg || typeof msg !== 'object') return;
    const m = msg as { topic?: unknown; payload?: unknown };
    if (m.topic === 'room') {
      // Node-RED switched this view to another room: every page joins it with a fresh ticket.
      this.#attempt = 0;
      this.#joinWaitMs = JOIN_WAIT_MS;
      this.#leave(false);
      this.#say('Switching room.');
      this.#askStills();
      this.#start();
      return;
    }
    if (m.topic === 'tracks') {
      const tracks = tracksOf(m.payload);
      if (tracks) this.#onTracks(tracks);
      else this.#state.ignored++;
      return;
    }
    this.#onEvent(m.payload);
  }

  #onTracks(t: LiveTracks): void {
    const tile = this.#tile(t.stream_id);
    if (!tile || this.#props().faces === false) return;
    const at = Date.now();
    const moveMs = tile.tracksAt ? Math.min(MOVE_MAX_MS, Math.max(MOVE_MIN_MS, at - tile.tracksAt)) : 0;
    tile.tracksAt = at;
    const made = Date.parse(t.frame_time);
    const lag = Number.isFinite(made) ? Math.max(0, Math.round(at + this.#clockOffset - made)) : 0;
    const picture = { width: t.width, height: t.height };
    // Each box goes where its face will be when the box gets there: its sample's place carried ahead
    // by the event's delay and the move, along the face's motion since the sample before.
    const before = this.#sampled.get(t.stream_id);
    const sampled = new Map<number, { location: Edges; frameMs: number }>();
    tile.tracks = t.tracks.map((track) => {
      const prev = before?.get(track.track);
      if (Number.isFinite(made)) sampled.set(track.track, { location: track.location, frameMs: made });
      const location = prev && Number.isFinite(made) ? leadLocation(prev.location, prev.frameMs, track.location, made, lag + moveMs, picture) : track.location;
      return { key: `t${track.track}`, view: trackView(track), location, picture, lag, moveMs };
    });
    this.#sampled.set(t.stream_id, sampled);
    // A watcher that stops sending leaves no box behind.
    this.#later(Math.max(3000, 4 * moveMs), () => {
      const now = this.#tile(t.stream_id);
      if (now && now.tracksAt === at) {
        now.tracks = [];
        this.#sampled.delete(t.stream_id);
      }
    });
  }

  #onEvent(payload: unknown): void {
    if (!payload || typeof payload !== 'object') {
      this.#state.ignored++;
      return;
    }
    const e = payload as Partial<SlimEvent>;
    if (typeof e.stream_id === 'string' && typeof e.stream_label === 'string' && e.stream_label && this.#labels.get(e.stream_id) !== e.stream_label) {
      this.#labels.set(e.stream_id, e.stream_label);
      const labelled = this.#tile(e.stream_id);
      if (labelled) labelled.label = this.#labelOf(e.stream_id);
    }
    const tile = typeof e.stream_id === 'string' ? this.#tile(e.stream_id) : undefined;
    const note = presenceNote(e);
    if (note && tile) this.#note(tile.streamId, note);
    if (e.event === 'left' || this.#props().faces === false) return;
    const view = faceView(e);
    if (!view || !e.location) {
      this.#state.ignored++;
      return;
    }
    if (!tile) return;
    const picture = tile.picture.width > 0 ? tile.picture : tile.still ? { width: tile.still.width, height: tile.still.height } : null;
    const b = e.location;
    if (picture && (b.left < -1 || b.top < -1 || b.right > picture.width + 1 || b.bottom > picture.height + 1)) {
      this.#state.ignored++;
      return;
    }
    // The tracks draw this face already (with its verdict) when they reach the tile.
    if (tile.tracksAt && Date.now() - tile.tracksAt < TRACKS_FRESH_MS) return;
    // One box per track: the newest event of a face replaces its box.
    const key = typeof e.track === 'number' ? `t${e.track}` : `k${++tile.seq}`;
    const serial = ++tile.seq;
    const box: EventBox = { key, serial, view, location: b, lag: lagMs(e, Date.now() + this.#clockOffset), shownAt: Date.now() };
    tile.boxes = tile.boxes.filter((x) => x.key !== key).concat([box]);
    const streamId = tile.streamId;
    this.#later(BOX_MS, () => {
      const now = this.#tile(streamId);
      if (now) now.boxes = now.boxes.filter((x) => x.serial !== serial);
    });
  }

  #note(streamId: string, text: string): void {
    const tile = this.#tile(streamId);
    if (!tile) return;
    const key = ++tile.seq;
    tile.notes = tile.notes.concat([{ key, text }]).slice(-3);
    this.#later(NOTE_MS, () => {
      const now = this.#tile(streamId);
      if (now) now.notes = now.notes.filter((n) => n.key !== key);
    });
  }
}
