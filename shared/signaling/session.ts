import { EventEmitter } from 'node:events';
import type { MediaStreamTrack, RTCRtpReceiver, RTCIceServer, RtpPacket } from 'werift';
import { InputError } from '../errors';
import { FrameAssembler } from '../frames/assembler';
import type { EncodedFrame, VideoCodec } from '../frames/types';
import type { Ticket } from '../streaming/types';
import { ABORTED, abortable, rejoinDelay, sleep, type BackoffPolicy } from './backoff';
import { emitGuarded, type ListenerErrorInfo } from '../util/emit-guarded';

export { emitGuarded };
import { SignalingError } from './close-reasons';
import { resolveConnectSettings, type ConnectSettings, type ResolvedConnectSettings } from './connect';
import { SignalingConnection, type ConnectionTimeouts, type RemoteVideo } from './connection';
import { codecFromMime } from './peer';
import { isLoopbackServiceUrl } from '../image/literal-host';

/** Options of a signaling session. */
export interface SessionOptions extends ConnectSettings {
  /**
   * Returns a fresh ticket; called before every join, so a rejoin never reuses a ticket. The signal
   * fires when the session closes: a request still retrying is abandoned.
   */
  getTicket: (signal?: AbortSignal) => Promise<Ticket>;
  /** Rejoin policy; `false` turns rejoining off. */
  rejoin?: false | Partial<RejoinPolicy>;
  /** Timers of each attempt. */
  timeouts?: Partial<ConnectionTimeouts>;
  /**
   * Use only 127.0.0.1 host candidates. Default: on when the ticket's signaling URL is this machine
   * (a local sandbox), so that every host's sessions with a local sandbox stay on loopback alike.
   */
  loopbackOnly?: boolean;
  /** ICE servers to use instead of the ones the offer carries. */
  iceServers?: RTCIceServer[];
  /** While no key frame has arrived, a PLI is repeated at this interval (ms, default 1000). */
  keyframeRetryMs?: number;
}

/** When and how often to join again. */
export interface RejoinPolicy extends BackoffPolicy {
  /** Consecutive failed attempts before giving up (default: unlimited). */
  maxAttempts: number;
  /**
   * Attempts in all at the first join before start() gives up (default: unlimited, i.e. the
   * maxAttempts rule alone): a room that cannot be joined at start ends the session instead of
   * being tried for ever, while a session once joined rejoins by maxAttempts.
   */
  startAttempts?: number;
}

/** Details of a successful join. */
export interface ConnectedInfo {
  clientId?: string;
  /** 1 for the first join, more after rejoins. */
  joins: number;
}

/** Details of a coming rejoin. */
export interface RejoiningInfo {
  /** Consecutive failed attempts so far. */
  attempt: number;
  delayMs: number;
  error: SignalingError;
}

/** A remote stream that started (downstream). */
export interface StreamAddedInfo {
  /** The msid stream id: the publisher's client_id (`mid:<mid>` when the server sent no msid). */
  streamId: string;
  codec?: VideoCodec;
  trackId?: string;
}

/** What the session knows of one remote stream. */
export interface RemoteStreamInfo {
  codec?: VideoCodec;
}

export type { ListenerErrorInfo } from '../util/emit-guarded';

/** Events of a signaling session. */
export interface SessionEvents {
  connected: [ConnectedInfo];
  /** A remote stream began: a publisher's video m-line now sends (downstream). Comes after `connected`; frames of it follow. */
  streamAdded: [StreamAddedInfo];
  /** A remote stream ended: its publisher left, or the connection did (every stream is removed before `rejoining` and `closed`). */
  streamRemoved: [{ streamId: string }];
  /** A depacketized video frame (downstream), tagged with its `streamId`. */
  frame: [EncodedFrame];
  /** The server asked the publisher for a key frame (upstream). */
  keyframeRequest: [];
  /** A `notify` or `push` message of the server, as received (the ticket token, should it appear, is masked). */
  notice: [Record<string, unknown>];
  rejoining: [RejoiningInfo];
  /** A failure that ends the session; emitted only when someone listens, then `closed` follows. */
  error: [SignalingError];
  /** The session is over: after close(), or after a failure it will not recover from. */
  closed: [{ error?: SignalingError }];
  /**
   * A listener of another event threw. The session's own state is unaffected. Without a listener
   * here, the error is reported with process.emitWarning (type 'ListenerError').
   */
  listenerError: [ListenerErrorInfo];
}

export const DEFAULT_REJOIN: RejoinPolicy = { baseDelayMs: 500, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY };
const DEFAULT_TIMEOUTS: ConnectionTimeouts = { signalingMs: 15_000, iceGraceMs: 5_000, iceSilenceMs: 12_000, idleMs: 30_000 };

/**
 * A Sora-style signaling session that stays joined: it answers the server's offer, turns received
 * video into frames, and after a dropped socket, a server-side timeout or an ICE failure joins again
 * with a fresh ticket after an exponential, jittered delay. Reasons that signal a bug stop it.
 */
export class SignalingSession extends EventEmitter<SessionEvents> {
  readonly #settings: ResolvedConnectSettings;
  readonly #rejoinPolicy?: RejoinPolicy;
  readonly #timeouts: ConnectionTimeouts;
  /** Counters for monitoring: joins, answered renegotiations, keyframe requests sent, frames out. */
  readonly stats = { joins: 0, renegotiations: 0, keyframeRequests: 0, frames: 0 };
  #connection?: SignalingConnection;
  #stopped = false;
  #closedEmitted = false;
  #joins = 0;
  #failures = 0;
  /**
   * Aborted by close(). Every wait of the session (ticket, attempt, backoff) listens to it only while
   * it lasts, so an ended attempt and its ticket are not kept reachable until the session closes.
   */
  readonly #stopping = new AbortController();
  /** One entry per received video m-line, keyed by its receiver. */
  readonly #receivers = new Map<RTCRtpReceiver, Receiving>();
  /** Receivers werift announced (again) since the last reconciliation: they start over. */
  readonly #announced = new Set<RTCRtpReceiver>();
  readonly #remoteStreams = new Map<string, RemoteStreamInfo>();
  #latestClientId?: string;
  #loopDone?: Promise<void>;
  #firstJoin?: Promise<ConnectedInfo>;
  /** Settles firstJoin from the session's own code, so no host listener can keep it pending. */
  #settleFirstJoin?: { resolve: (info: ConnectedInfo) => void; reject: (error: SignalingError) => void };
  #closeDone?: Promise<void>;

  readonly #options: SessionOptions;

  /** Validates everything up front: a bad option throws InputError before any connection is made. */
  constructor(options: SessionOptions) {
    super();
    this.#options = options;
    this.#settings = resolveConnectSettings(options);
    if (typeof options.getTicket !== 'function') throw new InputError('invalid_input', 'getTicket must be a function returning a ticket', { field: 'getTicket', limit: 'a function' });
    this.#rejoinPolicy = options.rejoin === false ? undefined : { ...DEFAULT_REJOIN, ...options.rejoin };
    if (this.#rejoinPolicy) checkPolicy(this.#rejoinPolicy);
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    for (const [k, v] of Object.entries(this.#timeouts)) {
      if (!Number.isFinite(v) || v <= 0) throw new InputError('invalid_input', `timeouts.${k} must be a positive number of ms`, { field: `timeouts.${k}`, limit: '> 0 ms' });
    }
    const retry = options.keyframeRetryMs;
    if (retry !== undefined && (!Number.isFinite(retry) || retry <= 0)) {
      throw new InputError('invalid_input', 'keyframeRetryMs must be a positive number of ms', { field: 'keyframeRetryMs', limit: '> 0 ms' });
    }
  }

  /**
   * Starts joining. Resolves at the first successful join; rejects if the session ends before
   * one (the rejection is also reported through `error`/`closed`, and is safe to ignore).
   */
  start(): Promise<ConnectedInfo> {
    if (this.#firstJoin) return this.#firstJoin;
    if (this.#stopped) {
      this.#firstJoin = Promise.reject(SignalingError.from({ reason: 'CONNECTION-LOST', detail: 'the session was already closed' }));
      this.#firstJoin.catch(() => undefined);
      return this.#firstJoin;
    }
    this.#firstJoin = new Promise<ConnectedInfo>((resolve, reject) => {
      this.#settleFirstJoin = { resolve, reject };
    });
    this.#firstJoin.catch(() => undefined);
    this.#loopDone = this.#loop().catch((err: unknown) => {
      // Only a bug gets here; the session still ends with a typed error instead of an unhandled rejection.
      this.#stopped = true;
      this.#finish(SignalingError.from({ reason: 'CONNECTION-LOST', detail: `internal error: ${describeError(err)}`, rejoin: 'never' }));
    });
    return this.#firstJoin;
  }

  /** True while media flows on the current connection. */
  get connected(): boolean {
    return this.#isConnected;
  }

  #isConnected = false;

  /** The client_id the server gave the latest join (a new one at every rejoin); undefined before the first. */
  get clientId(): string | undefined {
    return this.#latestClientId;
  }

  /** The remote streams being received now, by stream id (downstream). */
  get streams(): ReadonlyMap<string, RemoteStreamInfo> {
    return this.#remoteStreams;
  }

  /**
   * Asks the server for a key frame (RTCP PLI) on one remote stream, or on every stream when no id
   * is given. An id that is not (or no longer) received is ignored.
   */
  requestKeyframe(streamId?: string): void {
    if (streamId !== undefined && typeof streamId !== 'string') {
      throw new InputError('invalid_input', 'streamId must be a string (a stream id from streamAdded) or omitted', { field: 'streamId', limit: 'a string' });
    }
    for (const r of this.#receivers.values()) if (streamId === undefined || r.streamId === streamId) r.requestKeyframe();
  }

  /** Sends one RTP packet on the upstream video track; dropped while not connected. Returns whether it was sent. */
  writeVideoRtp(packet: RtpPacket): boolean {
    const track = this.#connection?.outgoingTrack;
    if (!track) return false;
    try {
      track.writeRtp(packet);
      return true;
    } catch {
      return false;
    }
  }

  /** Leaves the room and releases socket, peer connection and timers. Idempotent. */
  close(): Promise<void> {
    this.#closeDone ??= (async () => {
      this.#stopped = true;
      this.#stopping.abort();
      await this.#connection?.close();
      await this.#loopDone;
      this.#finish(undefined);
    })();
    return this.#closeDone;
  }

  async #loop(): Promise<void> {
    let lastError: SignalingError | undefined;
    while (!this.#stopped) {
      const error = await this.#attempt();
      if (this.#stopped) return;
      lastError = error;
      if (error.rejoin === 'never' || !this.#rejoinPolicy) break;
      this.#failures++;
      const startLimit = this.#rejoinPolicy.startAttempts ?? Number.POSITIVE_INFINITY;
      if (this.#joins === 0 && this.#failures >= startLimit) {
        lastError = SignalingError.from({
          reason: error.reason,
          closeCode: error.closeCode,
          rejoin: error.rejoin,
          detail: `could not join the room in ${startLimit} attempt${startLimit === 1 ? '' : 's'}; the last: ${error.message.replace(/^signaling ended: /, '')}`,
        });
        break;
      }
      if (this.#failures > this.#rejoinPolicy.maxAttempts) {
        lastError = SignalingError.from({
          reason: error.reason,
          closeCode: error.closeCode,
          rejoin: error.rejoin,
          detail: `gave up after ${this.#rejoinPolicy.maxAttempts} rejoin attempts`,
        });
        break;
      }
      // An invalid ticket is fixed by the fresh one the next attempt fetches: no need to wait first.
      const delayMs = error.rejoin === 'new-ticket' && this.#failures === 1 ? 0 : rejoinDelay(this.#rejoinPolicy, this.#failures);
      this.#safeEmit('rejoining', { attempt: this.#failures, delayMs, error });
      await sleep(delayMs, this.#stopping.signal);
    }
    if (!this.#stopped) {
      this.#stopped = true;
      this.#finish(lastError);
    }
  }

  #finish(error: SignalingError | undefined): void {
    if (this.#closedEmitted) return;
    this.#closedEmitted = true;
    this.#clearReceivers();
    this.#settleFirstJoin?.reject(error ?? SignalingError.from({ reason: 'CONNECTION-LOST', detail: 'closed before the first join' }));
    if (error && this.listenerCount('error') > 0) this.#safeEmit('error', error);
    this.#safeEmit('closed', { error });
  }

  // A throwing listener belongs to the host: it must neither break the session's bookkeeping nor
  // keep the listeners after it from running, so each one is called on its own, and its error is
  // reported, not lost.
  #safeEmit<K extends keyof SessionEvents>(event: K, ...args: SessionEvents[K]): void {
    emitGuarded(this, event, args);
  }

  async #attempt(): Promise<SignalingError> {
    const closed = (): SignalingError => SignalingError.from({ reason: 'CONNECTION-LOST', detail: 'session closed' });
    let ticket: Ticket;
    try {
      const got = await abortable(this.#options.getTicket(this.#stopping.signal), this.#stopping.signal);
      if (got === ABORTED) return closed();
      ticket = got;
      if (!ticket || typeof ticket.url !== 'string' || typeof ticket.access_token !== 'string' || typeof ticket.id !== 'string') {
        throw new TypeError('getTicket returned something that is not a ticket');
      }
    } catch (err) {
      // getTicket is the host's code: it may reject with anything, undefined and null included.
      const retryable = (err as { retryable?: unknown } | null | undefined)?.retryable;
      return SignalingError.from({
        reason: 'TICKET-FAILED',
        detail: describeError(err),
        rejoin: retryable === false || err instanceof TypeError || err instanceof InputError ? 'never' : 'backoff',
      });
    }
    if (this.#stopped) return closed();
    const conn = new SignalingConnection({
      ticket,
      settings: this.#settings,
      timeouts: this.#timeouts,
      loopbackOnly: this.#options.loopbackOnly ?? isLoopbackServiceUrl(ticket.url),
      iceServers: this.#options.iceServers,
    });
    this.#connection = conn;
    const ended = new Promise<SignalingError>((resolve) => conn.once('ended', resolve));
    conn.on('connected', ({ clientId }) => {
      this.#failures = 0;
      this.#joins++;
      this.stats.joins = this.#joins;
      this.#isConnected = true;
      this.#latestClientId = clientId;
      const info = { clientId, joins: this.#joins };
      this.#settleFirstJoin?.resolve(info);
      this.#safeEmit('connected', info);
      this.#reconcile(conn);
    });
    conn.on('track', (track, receiver) => {
      if (track.kind === 'video') this.#announced.add(receiver);
    });
    conn.on('negotiated', () => this.#reconcile(conn));
    conn.on('keyframeRequest', () => this.#safeEmit('keyframeRequest'));
    conn.on('renegotiated', () => this.stats.renegotiations++);
    conn.on('notice', (notice) => this.#safeEmit('notice', notice));
    conn.start();
    const error = await abortable(ended, this.#stopping.signal);
    this.#isConnected = false;
    this.#clearReceivers();
    await conn.close();
    return error === ABORTED ? closed() : error;
  }

  /**
   * Brings the receivers in line with what the last answered offer sends: a new stream id on an
   * m-line, or an m-line announced again, starts over; an m-line that went inactive is removed.
   */
  #reconcile(conn: SignalingConnection): void {
    // Streams are announced once media can flow: `connected` first, then `streamAdded`, then frames.
    if (this.#connection !== conn || this.#stopped || !this.#isConnected) return;
    const current = new Map<RTCRtpReceiver, RemoteVideo>();
    for (const remote of conn.remoteVideo()) current.set(remote.receiver, remote);
    for (const [receiver, r] of [...this.#receivers]) {
      const now = current.get(receiver);
      if (!now || this.#announced.has(receiver) || streamIdOf(now) !== r.streamId || now.track !== r.track) this.#dropReceiver(receiver);
    }
    for (const remote of current.values()) {
      if (!this.#receivers.has(remote.receiver)) this.#receive(conn, remote);
    }
    this.#announced.clear();
  }

  #receive(conn: SignalingConnection, remote: RemoteVideo): void {
    const { track, receiver } = remote;
    const codec = codecFromMime(remote.codec ?? track.codec?.mimeType);
    if (!codec) return;
    const streamId = streamIdOf(remote);
    // The msid track id when the server sent one (the same on every frame and in streamAdded).
    const trackId = remote.msidTrackId ?? track.id ?? (track.ssrc === undefined ? undefined : String(track.ssrc));
    const requestKeyframe = (): void => {
      if (track.ssrc === undefined) return;
      this.stats.keyframeRequests++;
      receiver.sendRtcpPLI(track.ssrc).catch(() => undefined);
    };
    const assembler = new FrameAssembler({
      codec,
      onFrame: (frame) => {
        this.stats.frames++;
        this.#safeEmit('frame', { ...frame, streamId, trackId });
      },
      onKeyframeNeeded: () => requestKeyframe(),
    });
    // The first PLI can reach the server before the publisher's stream does: repeat until a key frame.
    const retry = setInterval(() => {
      if (assembler.waitingForKeyframe) requestKeyframe();
    }, this.#options.keyframeRetryMs ?? 1000);
    const { unSubscribe } = track.onReceiveRtp.subscribe((rtp) => {
      if (this.#connection === conn) assembler.push(rtp);
    });
    this.#receivers.set(receiver, { track, streamId, retry, unsubscribe: unSubscribe, requestKeyframe });
    if (!this.#remoteStreams.has(streamId)) {
      this.#remoteStreams.set(streamId, { codec });
      this.#safeEmit('streamAdded', { streamId, codec, trackId });
    }
    requestKeyframe();
  }

  #dropReceiver(receiver: RTCRtpReceiver): void {
    const r = this.#receivers.get(receiver);
    if (!r) return;
    clearInterval(r.retry);
    r.unsubscribe();
    this.#receivers.delete(receiver);
    // A stream is gone when the last of its m-lines is.
    if ([...this.#receivers.values()].some((other) => other.streamId === r.streamId)) return;
    if (this.#remoteStreams.delete(r.streamId)) this.#safeEmit('streamRemoved', { streamId: r.streamId });
  }

  #clearReceivers(): void {
    for (const receiver of [...this.#receivers.keys()]) this.#dropReceiver(receiver);
    this.#announced.clear();
  }
}

/** What the session holds for one received video m-line. */
interface Receiving {
  track: MediaStreamTrack;
  streamId: string;
  retry: NodeJS.Timeout;
  unsubscribe: () => void;
  requestKeyframe: () => void;
}

/** The stream id of a received m-line: its msid stream id, else one made from its mid. */
function streamIdOf(remote: RemoteVideo): string {
  return remote.streamId ?? `mid:${remote.mid ?? '?'}`;
}

function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 200);
  return err === undefined || err === null ? `rejected with ${String(err)}` : 'unknown error';
}

function checkPolicy(p: RejoinPolicy): void {
  if (!Number.isFinite(p.baseDelayMs) || p.baseDelayMs < 0) throw new InputError('invalid_input', 'rejoin.baseDelayMs must be a number >= 0', { field: 'rejoin.baseDelayMs', limit: '>= 0 ms' });
  if (!Number.isFinite(p.maxDelayMs) || p.maxDelayMs < p.baseDelayMs) {
    throw new InputError('invalid_input', 'rejoin.maxDelayMs must be a number >= rejoin.baseDelayMs', { field: 'rejoin.maxDelayMs', limit: '>= baseDelayMs' });
  }
  if (!(p.maxAttempts >= 0) || (Number.isFinite(p.maxAttempts) && !Number.isInteger(p.maxAttempts))) {
    throw new InputError('invalid_input', 'rejoin.maxAttempts must be a whole number >= 0 (or Infinity)', { field: 'rejoin.maxAttempts', limit: 'integer >= 0' });
  }
  const s = p.startAttempts;
  if (s !== undefined && (!(s >= 1) || (Number.isFinite(s) && !Number.isInteger(s)))) {
    throw new InputError('invalid_input', 'rejoin.startAttempts must be a whole number >= 1 (or Infinity)', { field: 'rejoin.startAttempts', limit: 'integer >= 1' });
  }
}
