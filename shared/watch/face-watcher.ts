import { EventEmitter } from 'node:events';
import type { ClientError } from '../errors';
import { StreamingClient } from '../streaming';
import { emitGuarded } from '../util/emit-guarded';
import { VisionClient } from '../vision';
import type { AnalysisContext } from './analyse';
import { CallBudget } from './budget';
import { Cooldown } from './cooldown';
import { DEFAULT_CROP_RULE } from './crop-geometry';
import { asClientError, WatchError } from './errors';
import type { ClipEvent, PresentEntry, StopReason, TracksEvent, WatchEvent, WatcherEvents, WatchState } from './events';
import { resolveWatchOptions, type ResolvedWatchOptions, type WatchOptions } from './options';
import { Presence } from './presence';
import { WatchReporter } from './reporter';
import { RoomStreams } from './room-streams';
import type { WatchStats } from './stats';
import { Timers } from './timers';
import { isMuted, PeopleView } from './people-view';
import { leftEvent, presentEntry } from './visit-events';
import { MemoryVisitorStore, VisitorBook } from './visitors';
import { PeopleIndex } from '../people/people-index';
import { ClipRecorder } from '../clips/clip-recorder';
import { checkPrivateFolder } from '../util/private-folder';
import { HistoryRecorder } from '../history/recorder';
import { historyStoreOf } from '../history/option';
import type { HistoryStore } from '../history/types';

/** How often visitors past their retention are looked for (also once at start). */
const VISITOR_EXPIRY_MS = 3_600_000;
/** How often clips are checked for their end when no frame comes. */
const CLIP_CHECK_MS = 250;
/** How often visits are checked for a `left` event. */
const LEFT_CHECK_MS = 1000;
/** While no stream comes, how often the room's publisher count is looked at (one REST call). */
const NO_STREAM_CHECK_MS = 60_000;
const CODECS = ['VP8', 'VP9', 'H264'] as const;

/**
 * Watches a room and reports the faces it sees: joins as a viewer (rejoining after drops), and runs
 * each stream through frame -> sample -> changed? -> snapshot -> faces -> crop -> compare -> track ->
 * event, and who arrives and leaves. Emits `match`, `unknown`, `arrived`, `left`, `status` and
 * `error`; never throws from its events.
 *
 * It composes owners that each close what they hold: the room's streams (session, receive thread,
 * streams and their decoders), the reporting (state, status, errors, quota pause), presence and
 * the remembered visitors, and the timers.
 */
export class FaceWatcher extends EventEmitter<WatcherEvents> {
  readonly #o: ResolvedWatchOptions;
  readonly #vision: VisionClient;
  readonly #streaming: StreamingClient;
  readonly #owned: { close(): Promise<void> }[] = [];
  readonly #timers = new Timers();
  readonly #report: WatchReporter;
  readonly #room: RoomStreams;
  readonly #presence: Presence;
  readonly #visitors?: VisitorBook;
  readonly #people?: PeopleView;
  readonly #clips?: ClipRecorder;
  /** With `history`: the recorder (made at start, once the store is open) and the store when the watcher opened it. */
  #history?: HistoryRecorder;
  #ownedHistory?: HistoryStore;
  #started?: Promise<void>;
  #stopped?: Promise<void>;
  /** stop() was called: a start it ends rejects with 'stopped'. */
  #stopAsked = false;

  /** Checks the options (InputError on a bad one); nothing is contacted before start(). */
  constructor(options: WatchOptions) {
    super();
    this.#o = resolveWatchOptions(options);
    this.#vision = options.vision instanceof VisionClient ? options.vision : this.#own(new VisionClient(options.vision));
    try {
      this.#streaming = options.streaming instanceof StreamingClient ? options.streaming : this.#own(new StreamingClient(options.streaming));
    } catch (err) {
      void this.#closeOwned();
      throw err;
    }
    // Host listeners must not break the watcher, nor keep the listeners after them from running.
    const out = (event: WatchEvent): void => void emitGuarded(this, event.event, [event]);
    this.#report = new WatchReporter(this.#o, out, { streams: () => this.#room.streams, decoder: () => this.#room.backend, present: () => this.present(), preRoll: () => (this.#clips ? Object.entries(this.#clips.stats()).map(([stream_id, s]) => ({ stream_id, ...s })) : undefined), history: () => this.#history?.status(), record: (e) => this.#history?.record(e) }, this.#timers);
    this.#presence = new Presence(this.#o.leftAfterMs);
    if (this.#o.people) {
      // A new index: visits follow renames, and visitors who became people leave the visitor book.
      const changed = (index: PeopleIndex): void => {
        this.#presence.relabel((id) => index.person(id)?.name);
        this.#visitors?.dropPeople();
      };
      this.#people = new PeopleView(this.#o.people, this.#o.collectionId, (error) => this.#report.error(error, 'people'), changed);
    }
    if (this.#o.clips) {
      const clips = { folder: this.#o.clips, preRollMs: this.#o.preRollMs, postRollMs: this.#o.postRollMs, maxClipMs: this.#o.maxClipMs, on: this.#o.clipOn, room: this.#o.roomId };
      const overBound = (streamId: string, maxBytes: number): void => {
        if (this.#report.state === 'watching') this.#report.status('watching', `stream ${streamId}: its key frames are too far apart for the pre-roll's ${maxBytes} bytes; frames are let go (see pre_roll)`);
      };
      const emitClip = (e: ClipEvent): void => {
        this.#history?.record(e);
        emitGuarded(this, 'clip', [e]);
      };
      this.#clips = new ClipRecorder(clips, { present: () => this.present(), emit: emitClip, overBound });
    }
    const people = (): PeopleIndex => this.#people?.index ?? PeopleIndex.EMPTY;
    if (this.#o.rememberVisitors) {
      const isPerson = (faceId: string): boolean => people().personOf(faceId) !== undefined || people().notFaceOf(faceId) !== undefined;
      const book = { collectionId: this.#o.collectionId, retentionMs: this.#o.visitorRetentionMs, max: this.#o.maxVisitors, labels: this.#o.labels, isPerson };
      this.#visitors = new VisitorBook(book, this.#vision, this.#o.visitorStore ?? new MemoryVisitorStore(), (error) => this.#report.error(error, 'visitors'));
    }
    const ctx: AnalysisContext = {
      o: this.#o,
      vision: this.#vision,
      budget: new CallBudget(this.#o.budgetPerSecond),
      cooldown: new Cooldown(this.#o.cooldownMs),
      cropRule: { ...DEFAULT_CROP_RULE, minFaceSize: this.#o.minFaceSize },
      paused: () => this.#report.paused(),
      apiFailed: (err, streamId) => this.#report.apiFailed(err, streamId),
      apiSucceeded: () => this.#report.apiSucceeded(),
      ...(this.#clips ? { analysed: (streamId: string, at: number) => this.#clips!.analysed(streamId, at) } : {}),
      ...(this.#o.tracks ? { tracks: (e: TracksEvent) => void emitGuarded(this, 'tracks', [e]) } : {}),
      emit: (e) => {
        this.#clips?.face(e);
        this.#report.face(e);
      },
      ended: (visit) => this.#report.send(leftEvent(visit, 'recognised', this.#o.roomId)),
      muted: (faceId, person) => isMuted(this.#o, faceId, person),
      people,
      presence: this.#presence,
      visitors: this.#visitors,
    };
    this.#room = new RoomStreams(
      this.#o,
      this.#streaming,
      ctx,
      {
        streamFailed: (error, streamId, source) => this.#report.error(error, source, streamId),
        rejoining: (detail) => this.#report.setState('rejoining', detail),
        rejoined: (joins) => this.#report.setState('watching', `joined again (join ${joins})`),
        lost: (error) => this.#lost(error),
        ...(this.#clips ? { frame: (id, frame) => this.#clips!.frame(id, frame), streamEnded: (id) => this.#clips!.streamEnded(id) } : {}),
      },
      this.#timers,
    );
  }

  /**
   * Checks the room, the collection and the decoder, then joins. Resolves at the first join;
   * rejects with a ClientError (unknown room or collection, bad credentials, no decoder for the codec),
   * or a WatchError 'stopped' when stop() ends it while it checks or joins (a join never waits past a stop).
   */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  /** Leaves the room and releases every socket, peer, decoder and timer; resolves only then. Idempotent. */
  stop(): Promise<void> {
    this.#stopAsked = true;
    this.#stopped ??= this.#stop('requested');
    return this.#stopped;
  }

  /** Where the watcher stands: 'idle' before start(), then the state of its last status event. */
  get state(): WatchState | 'idle' {
    return this.#report.state;
  }

  /** Who is here now: each visit under way (who, since when, last seen on which stream), earliest first. */
  present(): PresentEntry[] {
    return this.#presence.here.map(presentEntry);
  }

  /** Counters: in total and per stream. */
  get stats(): WatchStats {
    const clips = this.#clips ? { pre_roll: this.#clips.stats() } : {};
    return { ...this.#report.totals(), latencyMs: this.#report.latency.summary(), state: this.#report.state, decoder: this.#room.backend, werift: this.#room.weriftStatus(), streams: this.#room.stats(), ...clips };
  }

  async #start(): Promise<void> {
    if (this.#stopped) throw new WatchError('stopped', 'the watcher was stopped before it started');
    this.#report.setState('joining');
    try {
      await this.#room.prepare();
      if (this.#o.clips) await checkPrivateFolder(this.#o.clips, 'clips', 'clips');
      // Clear errors before any media: an unknown room or collection, or credentials that do not work.
      await Promise.all([this.#streaming.getRoom(this.#o.roomId), this.#vision.listFaces(this.#o.collectionId)]);
      // The people first: a visitor whose face is a person's now is not one (and never removed).
      await this.#people?.open(this.#timers);
      // Visitors past their retention leave the collection before anyone is compared with them.
      await this.#visitors?.open(Date.now());
      await this.#openHistory();
      if (this.#stopped) throw new WatchError('stopped', 'the watcher was stopped while starting');
      await this.#room.join();
    } catch (err) {
      // A stop() that cut the start short (its join, a backoff) is what the caller asked for, not a failure.
      const error = this.#stopAsked ? new WatchError('stopped', 'the watcher was stopped while starting') : asClientError(err, 'start_failed');
      this.#stopped ??= this.#stop('start_failed', error);
      await this.#stopped;
      throw error;
    }
    this.#report.setState('watching');
    if (this.#o.streams) this.#timers.later(this.#o.streamWaitMs, () => this.#reportMissing());
    this.#timers.later(this.#o.streamWaitMs, () => void this.#checkOtherCodecs());
    this.#checkLeft();
    if (this.#clips) this.#checkClips();
    if (this.#visitors) this.#expireVisitors();
  }

  /** Opens the history (when the option names where) and starts its recorder: the first sweep runs now, then every hour. */
  async #openHistory(): Promise<void> {
    const o = this.#o.history;
    if (!o) return;
    const { store, owned } = await historyStoreOf(o);
    // A stop while it opened has closed everything else already: the store it opened closes too.
    if (this.#stopped) {
      if (owned) await store.close().catch(() => undefined);
      return;
    }
    if (owned) this.#ownedHistory = store;
    this.#history = new HistoryRecorder(store, {
      retention: o.retention,
      onError: (error) => this.#report.error(error, 'history'),
      onSweep: (r) => {
        if (r.removed_visits + r.removed_media + r.removed_media_for_size > 0 && this.#report.state === 'watching') {
          this.#report.status('watching', `history retention: ${r.removed_visits} visits and ${r.removed_media + r.removed_media_for_size} media files removed (${r.freed_bytes} bytes)`);
        }
      },
    });
    this.#history.start();
  }

  // The session gave up (a fault that rejoining cannot fix): the watcher reports it and stops.
  #lost(error: ClientError): void {
    if (this.#stopped) return;
    this.#report.error(error, 'session');
    this.#stopped ??= this.#stop('session_lost', error);
  }

  #reportMissing(): void {
    const missing = this.#room.missing();
    if (missing.length > 0 && this.#report.state === 'watching') this.#report.status('watching', `named streams not in the room: ${missing.join(', ')}`, { missing_streams: missing });
  }

  /**
   * The room relays no codec into another: publishers that send another codec than the one asked
   * for never reach this watcher. When none of its streams has come, the room's publisher count
   * tells whether that is why, and a status says which codec to ask for.
   */
  async #checkOtherCodecs(): Promise<void> {
    if (this.#room.streams.size > 0 || this.#report.state !== 'watching') return;
    const room = await this.#streaming.getRoom(this.#o.roomId).catch(() => undefined);
    if (room && room.up_count > 0 && this.#room.streams.size === 0 && this.#report.state === 'watching') {
      const others = CODECS.filter((c) => c !== this.#o.codec).join(' or ');
      const detail = `the room has ${room.up_count} publisher${room.up_count === 1 ? '' : 's'} but none sends ${this.#o.codec}: ask for ${others} (the codec option)`;
      this.#report.status('watching', detail, { publishers_in_other_codecs: room.up_count });
    }
    this.#timers.later(NO_STREAM_CHECK_MS, () => void this.#checkOtherCodecs());
  }

  /** Every second: the visits over end in `left` events. */
  #checkLeft(): void {
    for (const visit of this.#presence.over(Date.now())) this.#report.send(leftEvent(visit, 'not_seen', this.#o.roomId));
    this.#timers.later(LEFT_CHECK_MS, () => this.#checkLeft());
  }

  /** Clips past their end are written even when their stream sends nothing more. */
  #checkClips(): void {
    this.#clips!.tick();
    this.#timers.later(CLIP_CHECK_MS, () => this.#checkClips());
  }

  /** Every hour: visitors past their retention are removed from the collection. */
  #expireVisitors(): void {
    this.#timers.later(VISITOR_EXPIRY_MS, () => {
      void this.#visitors!.expire(Date.now()).finally(() => this.#expireVisitors());
    });
  }

  #own<T extends { close(): Promise<void> }>(client: T): T {
    this.#owned.push(client);
    return client;
  }

  async #closeOwned(): Promise<void> {
    await Promise.all(this.#owned.map((c) => c.close().catch(() => undefined)));
  }

  async #stop(reason: StopReason, error?: ClientError): Promise<void> {
    this.#report.stopping();
    // No one is left here for ever: every visit under way ends with the watch, before its last status.
    for (const visit of this.#presence.close()) this.#report.closing(leftEvent(visit, 'stopped', this.#o.roomId));
    this.#timers.close();
    this.#people?.close();
    // The clips in flight are written (or removed) while the room closes: their 5 s start at the stop.
    const clipsClosed = this.#clips?.close();
    await this.#room.close();
    await clipsClosed;
    // Every visit's end (and the clips just written) reach the history before it closes.
    await this.#history?.close();
    await this.#ownedHistory?.close().catch(() => undefined);
    await this.#visitors?.flush();
    await this.#closeOwned();
    this.#report.stopped(reason, error);
  }
}
