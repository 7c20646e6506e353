import { EventEmitter } from 'node:events';
import { H264Packetizer, Vp8Packetizer, Vp9Packetizer, type Packetizer, type RtpPacket } from 'werift';
import { InputError } from '../errors';
import type { VideoCodec } from '../frames/types';
import { SignalingError } from '../signaling/close-reasons';
import { SignalingSession, emitGuarded, type ConnectedInfo, type ListenerErrorInfo, type RejoiningInfo, type SessionOptions } from '../signaling/session';
import { framePacer } from './frame-pacer';
import type { VideoSource } from './source';
import { publishFailure } from './errors';

/** Options of a publisher; signaling options are those of SignalingSession minus role and video. */
export interface PublisherOptions extends Omit<SessionOptions, 'role' | 'video'> {
  /**
   * The frames to send. The source stays its opener's: the publisher reads it, stops reading when it
   * closes, and never closes it; whoever opened it closes it, after closing the publisher.
   */
  source: VideoSource;
  /** Maximum video bit rate announced in connect, in kbps. */
  bitRateKbps?: number;
}

/** Counters of what the publisher sent. */
export interface PublisherStats {
  frames: number;
  packets: number;
  /** Frames read while not connected (live semantics: they are not queued). */
  skipped: number;
}

/** Events of a publisher. */
export interface PublisherEvents {
  connected: [ConnectedInfo];
  rejoining: [RejoiningInfo];
  keyframeRequest: [];
  /** The source ran out (a file without loop); the publisher closes itself afterwards (the source is still its opener's to close). */
  sourceEnded: [];
  error: [Error];
  closed: [{ error?: Error }];
  /** A listener of another event threw; the broadcast went on. Without a listener here: process.emitWarning. */
  listenerError: [ListenerErrorInfo];
}

const MTU_PAYLOAD = 1100;

function packetizerFor(codec: VideoCodec): Packetizer {
  const opts = { maxPayloadSize: MTU_PAYLOAD, payloadType: 96 };
  if (codec === 'VP8') return new Vp8Packetizer(opts);
  if (codec === 'VP9') return new Vp9Packetizer(opts);
  return new H264Packetizer({ ...opts, inputFormat: 'annexb' });
}

/**
 * Broadcasts encoded video into a room: reads frames from a source, paces them on their
 * timestamps, packetizes them and writes them to the upstream track of a signaling session that
 * rejoins by itself. Frames that come while the session is down are skipped, as in a live feed.
 */
export class Publisher extends EventEmitter<PublisherEvents> {
  readonly stats: PublisherStats = { frames: 0, packets: 0, skipped: 0 };
  readonly #session: SignalingSession;
  readonly #packetizer: Packetizer;
  #pump?: Promise<void>;
  #stopped = false;
  #closing?: Promise<void>;
  #pumpError?: Error;
  /** Aborted when the publisher finishes: cuts the pacing wait short. */
  readonly #stop = new AbortController();

  readonly #options: PublisherOptions;

  constructor(options: PublisherOptions) {
    super();
    this.#options = options;
    const source = options.source;
    if (!source || typeof source.frames !== 'function') throw new InputError('invalid_input', 'source must be a VideoSource', { field: 'source', limit: 'a VideoSource' });
    const video = options.bitRateKbps === undefined ? { codec_type: source.codec } : { codec_type: source.codec, bit_rate: options.bitRateKbps };
    this.#session = new SignalingSession({ ...options, role: 'upstream', video });
    this.#packetizer = packetizerFor(source.codec);
    this.#session.on('connected', (i) => this.#relay('connected', i));
    this.#session.on('rejoining', (i) => this.#relay('rejoining', i));
    this.#session.on('keyframeRequest', () => {
      source.requestKeyFrame?.();
      this.#relay('keyframeRequest');
    });
    this.#session.on('closed', ({ error }) => void this.#finish(error));
  }

  /**
   * The client_id the server gave the latest join: viewers see this publisher's stream under it
   * (their frames' `streamId`). Undefined before the first join; a rejoin gets a new one.
   */
  get clientId(): string | undefined {
    return this.#session.clientId;
  }

  /** Joins the room; resolves at the first join, then streams until the source ends or close(). */
  async start(): Promise<ConnectedInfo> {
    const info = await this.#session.start();
    // Closed while joining: no frame may be read from (no ffmpeg started for) a closed source.
    if (this.#stopped) throw SignalingError.from({ reason: 'CONNECTION-LOST', detail: 'the publisher was closed' });
    this.#pump ??= this.#run().catch((err: unknown) => {
      this.#pumpError = publishFailure(err);
    });
    void this.#pump.then(() => this.#finish(this.#pumpError));
    return info;
  }

  /** Stops reading the source and sending, leaves the room. Idempotent. The source is left open: its opener closes it. */
  close(): Promise<void> {
    return this.#finish(undefined);
  }

  #finish(error: Error | SignalingError | undefined): Promise<void> {
    this.#closing ??= (async () => {
      this.#stopped = true;
      // Ends the pump's wait for a frame too, so a stalled source cannot hold the close up.
      this.#stop.abort();
      await this.#session.close();
      await this.#pump;
      if (error && this.listenerCount('error') > 0) this.#relay('error', error);
      this.#relay('closed', { error });
    })();
    return this.#closing;
  }

  // A host listener's failure must not stop the broadcast; it is reported, not swallowed.
  #relay<K extends keyof PublisherEvents>(event: K, ...args: PublisherEvents[K]): void {
    emitGuarded(this, event, args);
  }

  async #run(): Promise<void> {
    const pace = framePacer();
    const rtpBase = Math.floor(Math.random() * 0x7fffffff);
    const frames = this.#options.source.frames()[Symbol.asyncIterator]();
    // A source may stall (a camera that sends nothing): the wait for its next frame ends at close().
    const stopped = new Promise<IteratorReturnResult<undefined>>((resolve) => {
      const done = (): void => resolve({ done: true, value: undefined });
      if (this.#stop.signal.aborted) done();
      else this.#stop.signal.addEventListener('abort', done, { once: true });
    });
    let exhausted = false;
    try {
      for (;;) {
        const next = await Promise.race([frames.next(), stopped]);
        if (this.#stopped) break;
        if (next.done) {
          exhausted = true;
          break;
        }
        const frame = next.value;
        await pace(frame.timestamp, this.#stop.signal);
        if (this.#stopped) break;
        if (!this.#session.connected) {
          this.stats.skipped++;
          continue;
        }
        const packets: RtpPacket[] = this.#packetizer.packetize(frame.data, (rtpBase + frame.timestamp) >>> 0);
        for (const p of packets) if (this.#session.writeVideoRtp(p)) this.stats.packets++;
        this.stats.frames++;
      }
    } finally {
      // Done reading: the iterator is told so, not awaited (it answers after a frame still awaited,
      // which a stalled source may never give). Closing the source is its opener's.
      if (!exhausted) void Promise.resolve(frames.return?.()).catch(() => undefined);
    }
    if (!this.#stopped) this.#relay('sourceEnded');
  }
}
