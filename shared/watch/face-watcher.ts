import { EventEmitter } from 'node:events';
import { createDecoder, decoderAvailability, type DecoderBackend, type FrameDecoder } from '../decode';
import { ClientError } from '../errors';
import type { VideoCodec } from '../frames/types';
import { SignalingSession } from '../signaling/session';
import { ThreadSession } from '../signaling/session-thread';
import { disableWeriftSpeedups, weriftSpeedupsStatus, type WeriftSpeedupsStatus } from '../signaling/werift-speedups';
import { StreamingClient } from '../streaming';
import { VisionClient } from '../vision';
import type { AnalysisContext } from './analyse';
import { CallBudget } from './budget';
import { Cooldown } from './cooldown';
import { DEFAULT_CROP_RULE } from './crop-geometry';
import { asClientError, WatchError } from './errors';
import type { MatchEvent, StatusEvent, StopReason, UnknownEvent, WatchEvent, WatcherEvents, WatchState } from './events';
import { LatencyWindow } from './latency';
import { resolveWatchOptions, type ResolvedWatchOptions, type WatchOptions } from './options';
import { emitGuarded } from '../util/emit-guarded';
import { Presence } from './presence';
import { MemoryVisitorStore, VisitorBook } from './visitors';
import { isQuotaExhausted, QuotaPause } from './quota-pause';
import { sumCounters, type WatchStats } from './stats';
import { StreamWatch } from './stream-watch';

/** How long a stream's tracks outlive its removal: a rejoin brings the same stream back within it. */
const STREAM_GRACE_MS = 60_000;
/** The same API failure on the same stream is reported at most once in this span (it is still counted in stats). */
const REPEAT_ERROR_MS = 30_000;
/** How often visitors past their retention are looked for (also once at start). */
const VISITOR_EXPIRY_MS = 3_600_000;
/** How often visits are checked for a `left` event. */
const LEFT_CHECK_MS = 1000;
/** Longest quota pause, as a multiple of the first. */
const QUOTA_PAUSE_GROWTH = 16;

/**
 * Watches a room and reports the faces it sees: joins as a viewer (rejoining after drops), and runs
 * each stream through frame -> sample -> changed? -> snapshot -> faces -> crop -> compare -> track ->
 * event, and who left. Emits `match`, `unknown`, `left`, `status` and `error`; never throws from its events.
 */
export class FaceWatcher extends EventEmitter<WatcherEvents> {
  readonly #o: ResolvedWatchOptions;
  readonly #vision: VisionClient;
  readonly #streaming: StreamingClient;
  readonly #owned: { close(): Promise<void> }[] = [];
  readonly #budget: CallBudget;
  readonly #cooldown: Cooldown;
  readonly #quota: QuotaPause;
  readonly #latency = new LatencyWindow();
  readonly #presence: Presence;
  readonly #visitors?: VisitorBook;
  readonly #streams = new Map<string, StreamWatch>();
  readonly #codecs = new Map<string, VideoCodec | undefined>();
  readonly #graceTimers = new Map<string, NodeJS.Timeout>();
  /** Streams whose codec no decoder handles (or is being checked): their frames are ignored. */
  readonly #unsupported = new Set<string>();
  /** When an API failure of each kind was last reported, per stream: a lasting fault is not repeated every sample. */
  readonly #reported = new Map<string, number>();
  readonly #seenStreams = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #ctx: AnalysisContext;
  #session?: SignalingSession | ThreadSession;
  #state: WatchState | 'idle' = 'idle';
  #backend?: DecoderBackend;
  #started?: Promise<void>;
  #stopped?: Promise<void>;
  #events = { match: 0, unknown: 0 };

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
    this.#budget = new CallBudget(this.#o.budgetPerSecond);
    this.#cooldown = new Cooldown(this.#o.cooldownMs);
    this.#quota = new QuotaPause(this.#o.quotaPauseMs, this.#o.quotaPauseMs * QUOTA_PAUSE_GROWTH);
    this.#presence = new Presence(this.#o.leftAfterMs);
    if (this.#o.rememberVisitors) {
      const book = { collectionId: this.#o.collectionId, retentionMs: this.#o.visitorRetentionMs, max: this.#o.maxVisitors, labels: this.#o.labels };
      this.#visitors = new VisitorBook(book, this.#vision, this.#o.visitorStore ?? new MemoryVisitorStore(), (error) => this.#emitError(error));
    }
    this.#ctx = {
      o: this.#o,
      vision: this.#vision,
      budget: this.#budget,
      cooldown: this.#cooldown,
      cropRule: { ...DEFAULT_CROP_RULE, minFaceSize: this.#o.minFaceSize },
      paused: () => this.#quota.paused(performance.now()),
      apiFailed: (err, streamId) => this.#apiFailed(err, streamId),
      apiSucceeded: () => this.#quota.succeeded(),
      emit: (e) => this.#faceEvent(e),
      presence: this.#presence,
      visitors: this.#visitors,
    };
  }

  /**
   * Checks the room, the collection and the decoder, then joins. Resolves at the first join;
   * rejects with a ClientError (unknown room or collection, bad credentials, no decoder for the codec).
   */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  /** Leaves the room and releases every socket, peer, decoder and timer; resolves only then. Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop('requested');
    return this.#stopped;
  }

  /** Where the watcher stands: 'idle' before start(), then the state of its last status event. */
  get state(): WatchState | 'idle' {
    return this.#state;
  }

  /** Counters: in total and per stream. */
  get stats(): WatchStats {
    const per = Object.fromEntries([...this.#streams].map(([id, s]) => [id, { ...s.meter.snapshot(), codec: this.#codecs.get(id), decoder: this.#backend }]));
    const total = sumCounters([...this.#streams.values()].map((s) => s.meter.counters));
    return { ...total, latencyMs: this.#latency.summary(), state: this.#state, decoder: this.#backend, werift: this.#weriftStatus(), streams: per };
  }

  /** The receive path's own answer when it runs in a worker; else this process's. */
  #weriftStatus(): WeriftSpeedupsStatus {
    const session = this.#session;
    if (session instanceof ThreadSession && session.weriftStatus) return session.weriftStatus;
    return this.#o.weriftSpeedups ? weriftSpeedupsStatus() : { ...weriftSpeedupsStatus(), enabled: false, reason: 'turned off' };
  }

  async #start(): Promise<void> {
    if (this.#stopped) throw new WatchError('stopped', 'the watcher was stopped before it started');
    this.#setState('joining');
    try {
      const availability = await decoderAvailability(this.#o.codec, this.#o.decoder, { ffmpegPath: this.#o.ffmpegPath });
      if ('error' in availability) throw availability.error;
      this.#backend = availability.backend;
      // Clear errors before any media: an unknown room or collection, or credentials that do not work.
      await Promise.all([this.#streaming.getRoom(this.#o.roomId), this.#vision.listFaces(this.#o.collectionId)]);
      // Visitors past their retention leave the collection before anyone is compared with them.
      await this.#visitors?.open(Date.now());
      if (this.#stopped) throw new WatchError('stopped', 'the watcher was stopped while starting');
      const { thread, ...tweaks } = this.#o.session ?? {};
      const settings = {
        role: 'downstream' as const,
        channelId: this.#o.roomId,
        video: { codec_type: this.#o.codec },
        audio: false,
        getTicket: this.#streaming.ticketSource(this.#o.roomId, 'down'),
        loopbackOnly: this.#o.loopbackOnly,
        ...tweaks,
      };
      if (thread === 'main' && !this.#o.weriftSpeedups) disableWeriftSpeedups();
      const session = thread === 'main' ? new SignalingSession(settings) : new ThreadSession({ ...settings, weriftSpeedups: this.#o.weriftSpeedups });
      this.#session = session;
      this.#wire(session);
      await session.start();
    } catch (err) {
      const error = asClientError(err, 'start_failed');
      this.#stopped ??= this.#stop('start_failed', error);
      await this.#stopped;
      throw error;
    }
    this.#setState('watching');
    if (this.#o.streams) this.#later(this.#o.streamWaitMs, () => this.#reportMissing());
    this.#checkLeft();
    if (this.#visitors) this.#expireVisitors();
  }

  #wire(session: SignalingSession | ThreadSession): void {
    session.on('streamAdded', ({ streamId, codec }) => void this.#streamAdded(streamId, codec));
    session.on('streamRemoved', ({ streamId }) => this.#streamRemoved(streamId));
    session.on('frame', (frame) => {
      const id = frame.streamId ?? frame.trackId ?? 'default';
      if (this.#unsupported.has(id) || (this.#o.streams && !this.#o.streams.has(id))) return;
      (this.#streams.get(id) ?? this.#addStream(id, frame.codec)).push(frame);
    });
    session.on('connected', ({ joins }) => {
      if (joins > 1) this.#setState('watching', `joined again (join ${joins})`);
    });
    session.on('rejoining', ({ error, attempt, delayMs }) => {
      for (const s of this.#streams.values()) s.restart();
      this.#setState('rejoining', `${error.reason}; attempt ${attempt} in ${delayMs} ms`);
    });
    session.on('closed', ({ error }) => {
      if (!error || this.#stopped) return;
      // The session gave up (a fault that rejoining cannot fix): the watcher reports it and stops.
      this.#emitError(error);
      this.#stopped ??= this.#stop('session_lost', error);
    });
  }

  async #streamAdded(streamId: string, codec: VideoCodec | undefined): Promise<void> {
    if (this.#o.streams && !this.#o.streams.has(streamId)) return;
    this.#seenStreams.add(streamId);
    const grace = this.#graceTimers.get(streamId);
    if (grace) {
      clearTimeout(grace);
      this.#timers.delete(grace);
      this.#graceTimers.delete(streamId);
    }
    if (codec && codec !== this.#o.codec && !this.#streams.has(streamId)) {
      // Frames wait out the check: a stream no decoder handles must not get a decoder that fails.
      this.#unsupported.add(streamId);
      const availability = await decoderAvailability(codec, this.#o.decoder, { ffmpegPath: this.#o.ffmpegPath });
      if ('error' in availability) {
        this.#emitError(availability.error, streamId);
        return;
      }
      this.#unsupported.delete(streamId);
    }
    if (!this.#streams.has(streamId)) this.#addStream(streamId, codec);
  }

  #addStream(streamId: string, codec: VideoCodec | undefined): StreamWatch {
    this.#seenStreams.add(streamId);
    const use = codec ?? this.#o.codec;
    this.#codecs.set(streamId, use);
    const stream = new StreamWatch(streamId, this.#ctx, {
      createDecoder: () => this.#createDecoder(use),
      requestKeyframe: () => this.#session?.requestKeyframe(streamId),
      decoderFailed: (err) => this.#emitError(asClientError(err, 'decode_failed'), streamId),
      analysisFailed: (err) => this.#emitError(asClientError(err, 'analysis_failed'), streamId),
    });
    this.#streams.set(streamId, stream);
    return stream;
  }

  // A removed stream keeps its tracks for a while: after a rejoin the same publisher comes back
  // under the same id, and its people must not count as new.
  #streamRemoved(streamId: string): void {
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    stream.restart();
    const timer = this.#later(STREAM_GRACE_MS, () => {
      this.#graceTimers.delete(streamId);
      if (this.#session?.streams.has(streamId)) return;
      this.#streams.delete(streamId);
      void stream.close();
    });
    if (timer) this.#graceTimers.set(streamId, timer);
  }

  #createDecoder(codec: VideoCodec): Promise<FrameDecoder> {
    return createDecoder({ codec, backend: this.#backend ?? this.#o.decoder, ffmpegPath: this.#o.ffmpegPath });
  }

  #reportMissing(): void {
    const missing = [...(this.#o.streams ?? [])].filter((id) => !this.#seenStreams.has(id));
    if (missing.length > 0 && this.#state === 'watching') this.#status('watching', `named streams not in the room: ${missing.join(', ')}`, missing);
  }

  /** Every second: the visits over end in `left` events. */
  #checkLeft(): void {
    for (const v of this.#presence.over(Date.now())) {
      this.#emit({
        event: 'left',
        ...(v.visitorId !== undefined ? { visitor_id: v.visitorId } : { face_id: v.faceId }),
        label: v.label,
        room: this.#o.roomId,
        stream_id: v.streamId,
        arrived_at: new Date(v.arrivedAt).toISOString(),
        left_at: new Date(v.lastSeen).toISOString(),
        duration_s: Math.round((v.lastSeen - v.arrivedAt) / 100) / 10,
        time: new Date().toISOString(),
      });
    }
    this.#later(LEFT_CHECK_MS, () => this.#checkLeft());
  }

  /** Every hour: visitors past their retention are removed from the collection. */
  #expireVisitors(): void {
    this.#later(VISITOR_EXPIRY_MS, () => {
      void this.#visitors!.expire(Date.now()).finally(() => this.#expireVisitors());
    });
  }

  #apiFailed(err: unknown, streamId: string): void {
    if (isQuotaExhausted(err)) {
      const wasPaused = this.#quota.paused(performance.now());
      const ms = this.#quota.trip(performance.now());
      if (wasPaused) return;
      this.#emitError(asClientError(err, 'quota_exceeded'), streamId);
      this.#setState('paused', `quota exhausted: analysis resumes in ${Math.round(ms / 1000)} s`);
      this.#later(ms, () => {
        if (this.#state === 'paused') this.#setState('watching', 'quota pause over');
      });
      return;
    }
    const error = asClientError(err, 'api_failed');
    const key = `${streamId}\u0000${error.code}`;
    const last = this.#reported.get(key);
    if (last !== undefined && performance.now() - last < REPEAT_ERROR_MS) return;
    this.#reported.set(key, performance.now());
    this.#emitError(error, streamId);
  }

  #faceEvent(e: MatchEvent | UnknownEvent): void {
    this.#latency.add(e.latency_ms);
    const stream = this.#streams.get(e.stream_id);
    stream?.meter.latency.add(e.latency_ms);
    if (stream) stream.meter.counters.events[e.event]++;
    this.#events[e.event]++;
    this.#emit(e);
  }

  #emitError(error: ClientError, streamId?: string): void {
    const stream = streamId ? this.#streams.get(streamId) : undefined;
    if (stream) stream.meter.counters.events.error++;
    this.#emit({ event: 'error', error, ...(streamId ? { stream_id: streamId } : {}), time: new Date().toISOString() });
  }

  #setState(state: WatchState, detail?: string): void {
    this.#state = state;
    this.#status(state, detail);
  }

  #status(state: WatchState, detail?: string, missing?: string[], stop?: { reason: StopReason; error?: ClientError }): void {
    const total = sumCounters([...this.#streams.values()].map((s) => s.meter.counters));
    const event: StatusEvent = {
      event: 'status',
      state,
      room: this.#o.roomId,
      counts: {
        streams: this.#streams.size,
        frames: total.frames.received,
        samples: total.samples.taken,
        analysed: total.samples.analysed,
        matches: this.#events.match,
        unknowns: this.#events.unknown,
        api_calls: total.api.detect + total.api.compare,
      },
      ...(this.#backend ? { decoder: this.#backend } : {}),
      ...(missing ? { missing_streams: missing } : {}),
      ...(detail ? { detail } : {}),
      ...(stop ? { reason: stop.reason, ...(stop.error ? { error: stop.error } : {}) } : {}),
      time: new Date().toISOString(),
    };
    this.#emit(event);
  }

  // Host listeners must not break the watcher, nor keep the listeners after them from running.
  #emit(event: WatchEvent): void {
    if (!this.#o.events.has(event.event)) return;
    // Once a stop is under way an analysis still in flight must not start a host's workflow: only the final status goes out.
    if (this.#stopped && event.event !== 'status') return;
    emitGuarded(this, event.event, [event]);
  }

  #later(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    // Events still come while stop() closes the session: no timer may outlive it.
    if (this.#stopped) return undefined;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  #own<T extends { close(): Promise<void> }>(client: T): T {
    this.#owned.push(client);
    return client;
  }

  async #closeOwned(): Promise<void> {
    await Promise.all(this.#owned.map((c) => c.close().catch(() => undefined)));
  }

  async #stop(reason: StopReason, error?: ClientError): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#graceTimers.clear();
    await this.#session?.close();
    await Promise.all([...this.#streams.values()].map((s) => s.close()));
    await this.#visitors?.flush();
    await this.#closeOwned();
    const wasStarted = this.#state !== 'idle';
    this.#state = 'stopped';
    if (wasStarted) this.#status('stopped', error?.message, undefined, { reason, error });
  }
}
