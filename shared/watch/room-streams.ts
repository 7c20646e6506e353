import { createDecoder, decoderAvailability, type DecoderBackend, type FrameDecoder } from '../decode';
import type { ClientError } from '../errors';
import type { EncodedFrame, VideoCodec } from '../frames/types';
import { SignalingSession, type SessionEvents } from '../signaling/session';
import { ThreadSession, type ThreadSessionOptions } from '../signaling/session-thread';
import { weriftSpeedupsStatus, type WeriftSpeedupsStatus } from '../signaling/werift-speedups';
import type { StreamingClient } from '../streaming';
import type { AnalysisContext } from './analyse';
import { asClientError } from './errors';
import type { ErrorSource } from './events';
import type { ResolvedWatchOptions } from './options';
import type { StreamStats } from './stats';
import { StreamWatch } from './stream-watch';
import type { Timers } from './timers';

/** How long a stream's tracks outlive its removal: a rejoin brings the same stream back within it. */
const STREAM_GRACE_MS = 60_000;

/** What the room's streams tell their watcher. */
export interface RoomStreamsHooks {
  /** A stream's own failure (its decoder, its analysis, a codec no decoder handles). */
  streamFailed(error: ClientError, streamId: string, source: ErrorSource): void;
  /** The session lost the room and joins again. */
  rejoining(detail: string): void;
  /** The session joined again after a loss. */
  rejoined(joins: number): void;
  /** The session gave up: a fault that rejoining cannot fix. */
  lost(error: ClientError): void;
  /** Every encoded frame of a watched stream, as it came (before any decoding): the clips' pre-roll. */
  frame?(streamId: string, frame: EncodedFrame): void;
  /** A stream left, or starts over after a rejoin: what was cut from its frames ends. */
  streamEnded?(streamId: string): void;
}

/** What the room's streams use of their viewing session. */
export interface RoomSession {
  on<K extends keyof SessionEvents>(event: K, listener: (...args: SessionEvents[K]) => void): unknown;
  start(): Promise<unknown>;
  close(): Promise<void>;
  requestKeyframe(streamId?: string): void;
  readonly streams: ReadonlyMap<string, unknown>;
}

/** Makes the viewing session from its settings; tests give a fake, so the streams' bookkeeping is checked without WebRTC. */
export type OpenSession = (settings: ThreadSessionOptions) => RoomSession;

/**
 * The room as a set of streams: the viewing session (in a receive thread, or on this one), the
 * streams it announces (each a StreamWatch, with its decoder), their codec checks, and the grace
 * after a stream leaves. Owns and closes the session and every stream.
 */
export class RoomStreams {
  readonly #o: ResolvedWatchOptions;
  readonly #streaming: StreamingClient;
  readonly #ctx: AnalysisContext;
  readonly #hooks: RoomStreamsHooks;
  readonly #timers: Timers;
  readonly #streams = new Map<string, StreamWatch>();
  readonly #codecs = new Map<string, VideoCodec>();
  readonly #grace = new Map<string, NodeJS.Timeout>();
  /** Streams whose codec no decoder handles (or is being checked): their frames are ignored. */
  readonly #unsupported = new Set<string>();
  readonly #seen = new Set<string>();
  readonly #open?: OpenSession;
  #session?: RoomSession;
  #backend?: DecoderBackend;

  /** `open` replaces the real session (the default, SignalingSession or ThreadSession by `o.session.thread`). */
  constructor(o: ResolvedWatchOptions, streaming: StreamingClient, ctx: AnalysisContext, hooks: RoomStreamsHooks, timers: Timers, open?: OpenSession) {
    this.#o = o;
    this.#streaming = streaming;
    this.#ctx = ctx;
    this.#hooks = hooks;
    this.#timers = timers;
    this.#open = open;
  }

  /** The decoder backend for the watched codec; throws a ClientError when none can decode it. */
  async prepare(): Promise<void> {
    const availability = await decoderAvailability(this.#o.codec, this.#o.decoder, { ffmpegPath: this.#o.ffmpegPath });
    if ('error' in availability) throw availability.error;
    this.#backend = availability.backend;
  }

  /** Joins the room as a viewer; resolves at the first join. */
  async join(): Promise<void> {
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
    const session: RoomSession = this.#open ? this.#open(settings) : thread === 'main' ? new SignalingSession(settings) : new ThreadSession(settings);
    this.#session = session;
    this.#wire(session);
    await session.start();
  }

  /** The decoder backend in use, once prepared. */
  get backend(): DecoderBackend | undefined {
    return this.#backend;
  }

  /** The streams being watched (and those in their grace after leaving). */
  get streams(): ReadonlyMap<string, StreamWatch> {
    return this.#streams;
  }

  /** Stream ids named in `streams` that have not appeared. */
  missing(): string[] {
    return [...(this.#o.streams ?? [])].filter((id) => !this.#seen.has(id));
  }

  /** Counters per stream, with its codec and decoder. */
  stats(): Record<string, StreamStats & { codec?: string; decoder?: string }> {
    return Object.fromEntries([...this.#streams].map(([id, s]) => [id, { ...s.meter.snapshot(), codec: this.#codecs.get(id), decoder: this.#backend }]));
  }

  /** Whether the werift speed-ups run on the receive path: the receive thread's own answer, else this thread's. */
  weriftStatus(): WeriftSpeedupsStatus {
    const session = this.#session;
    if (session instanceof ThreadSession && session.weriftStatus) return session.weriftStatus;
    return weriftSpeedupsStatus();
  }

  /** Leaves the room, then closes every stream (decoders, analyses in flight). Idempotent. */
  async close(): Promise<void> {
    for (const t of this.#grace.values()) this.#timers.cancel(t);
    this.#grace.clear();
    await this.#session?.close();
    await Promise.all([...this.#streams.values()].map((s) => s.close()));
  }

  #wire(session: RoomSession): void {
    session.on('streamAdded', ({ streamId, codec }) => void this.#added(streamId, codec));
    session.on('streamRemoved', ({ streamId }) => this.#removed(streamId));
    session.on('frame', (frame) => {
      const id = frame.streamId ?? frame.trackId ?? 'default';
      if (this.#unsupported.has(id) || !this.#wanted(id)) return;
      (this.#streams.get(id) ?? this.#add(id, frame.codec)).push(frame);
      this.#hooks.frame?.(id, frame);
    });
    session.on('connected', ({ joins }) => {
      if (joins > 1) this.#hooks.rejoined(joins);
    });
    session.on('rejoining', ({ error, attempt, delayMs }) => {
      for (const [id, s] of this.#streams) {
        s.restart();
        this.#hooks.streamEnded?.(id);
      }
      this.#hooks.rejoining(`${error.reason}; attempt ${attempt} in ${delayMs} ms`);
    });
    session.on('closed', ({ error }) => {
      if (error) this.#hooks.lost(error);
    });
  }

  #wanted(streamId: string): boolean {
    return !this.#o.streams || this.#o.streams.has(streamId);
  }

  async #added(streamId: string, codec: VideoCodec | undefined): Promise<void> {
    if (!this.#wanted(streamId)) return;
    this.#seen.add(streamId);
    this.#timers.cancel(this.#grace.get(streamId));
    this.#grace.delete(streamId);
    if (codec && codec !== this.#o.codec && !this.#streams.has(streamId)) {
      // Frames wait out the check: a stream no decoder handles must not get a decoder that fails.
      this.#unsupported.add(streamId);
      const availability = await decoderAvailability(codec, this.#o.decoder, { ffmpegPath: this.#o.ffmpegPath });
      if ('error' in availability) {
        this.#hooks.streamFailed(availability.error, streamId, 'decoder');
        return;
      }
      this.#unsupported.delete(streamId);
    }
    if (!this.#streams.has(streamId)) this.#add(streamId, codec);
  }

  #add(streamId: string, codec: VideoCodec | undefined): StreamWatch {
    this.#seen.add(streamId);
    const use = codec ?? this.#o.codec;
    this.#codecs.set(streamId, use);
    const stream = new StreamWatch(streamId, this.#ctx, {
      createDecoder: () => this.#createDecoder(use),
      requestKeyframe: () => this.#session?.requestKeyframe(streamId),
      decoderFailed: (err) => this.#hooks.streamFailed(asClientError(err, 'decode_failed'), streamId, 'decoder'),
      analysisFailed: (err) => this.#hooks.streamFailed(asClientError(err, 'analysis_failed'), streamId, 'stream'),
    });
    this.#streams.set(streamId, stream);
    return stream;
  }

  // A removed stream keeps its tracks for a while: after a rejoin the same publisher comes back
  // under the same id, and its people must not count as new.
  #removed(streamId: string): void {
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    stream.restart();
    this.#hooks.streamEnded?.(streamId);
    const timer = this.#timers.later(STREAM_GRACE_MS, () => {
      this.#grace.delete(streamId);
      if (this.#session?.streams.has(streamId)) return;
      this.#streams.delete(streamId);
      void stream.close();
    });
    if (timer) this.#grace.set(streamId, timer);
  }

  #createDecoder(codec: VideoCodec): Promise<FrameDecoder> {
    return createDecoder({ codec, backend: this.#backend ?? this.#o.decoder, ffmpegPath: this.#o.ffmpegPath });
  }
}
