import { EventEmitter } from 'node:events';
import type { MediaStreamTrack, RTCRtpReceiver, RTCIceServer, RtpPacket } from 'werift';
import { InputError } from '../errors';
import { FrameAssembler } from '../frames/assembler';
import type { EncodedFrame } from '../frames/types';
import type { Ticket } from '../streaming/types';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { SignalingError } from './close-reasons';
import { resolveConnectSettings, type ConnectSettings, type ResolvedConnectSettings } from './connect';
import { SignalingConnection, type ConnectionTimeouts } from './connection';
import { codecFromMime } from './peer';

/** Options of a signaling session. */
export interface SessionOptions extends ConnectSettings {
  /** Returns a fresh ticket; called before every join, so a rejoin never reuses a ticket. */
  getTicket: () => Promise<Ticket>;
  /** Rejoin policy; `false` turns rejoining off. */
  rejoin?: false | Partial<RejoinPolicy>;
  /** Timers of each attempt. */
  timeouts?: Partial<ConnectionTimeouts>;
  /** Use only 127.0.0.1 host candidates (tests, a local sandbox). */
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

/** Events of a signaling session. */
export interface SessionEvents {
  connected: [ConnectedInfo];
  /** A depacketized video frame (downstream). */
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
}

const DEFAULT_REJOIN: RejoinPolicy = { baseDelayMs: 500, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY };
const DEFAULT_TIMEOUTS: ConnectionTimeouts = { signalingMs: 15_000, iceGraceMs: 5_000, iceSilenceMs: 12_000, idleMs: 30_000 };

/**
 * A Sora-style signaling session that stays joined: it answers the server's offer, turns received
 * video into frames, and after a dropped socket, a server-side timeout or an ICE failure joins again
 * with a fresh ticket after an exponential, jittered delay. Reasons that signal a bug stop it.
 */
export class SignalingSession extends EventEmitter<SessionEvents> {
  private readonly settings: ResolvedConnectSettings;
  private readonly rejoinPolicy?: RejoinPolicy;
  private readonly timeouts: ConnectionTimeouts;
  /** Counters for monitoring: joins, answered renegotiations, keyframe requests sent, frames out. */
  readonly stats = { joins: 0, renegotiations: 0, keyframeRequests: 0, frames: 0 };
  private connection?: SignalingConnection;
  private stopped = false;
  private closedEmitted = false;
  private joins = 0;
  private failures = 0;
  private readonly stopSignal: Promise<SignalingError>;
  private signalStop!: () => void;
  private sleepTimer?: NodeJS.Timeout;
  /** One entry per received track: werift announces a track again after its m-line was inactive. */
  private readonly receivers = new Map<MediaStreamTrack, Receiving>();
  private loopDone?: Promise<void>;
  private firstJoin?: Promise<ConnectedInfo>;
  /** Settles firstJoin from the session's own code, so no host listener can keep it pending. */
  private settleFirstJoin?: { resolve: (info: ConnectedInfo) => void; reject: (error: SignalingError) => void };
  private closeDone?: Promise<void>;

  /** Validates everything up front: a bad option throws InputError before any connection is made. */
  constructor(private readonly options: SessionOptions) {
    super();
    this.settings = resolveConnectSettings(options);
    if (typeof options.getTicket !== 'function') throw new InputError('getTicket', 'getTicket must be a function returning a ticket', 'a function');
    this.rejoinPolicy = options.rejoin === false ? undefined : { ...DEFAULT_REJOIN, ...options.rejoin };
    if (this.rejoinPolicy) checkPolicy(this.rejoinPolicy);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    for (const [k, v] of Object.entries(this.timeouts)) {
      if (!Number.isFinite(v) || v <= 0) throw new InputError(`timeouts.${k}`, `timeouts.${k} must be a positive number of ms`, '> 0 ms');
    }
    const retry = options.keyframeRetryMs;
    if (retry !== undefined && (!Number.isFinite(retry) || retry <= 0)) {
      throw new InputError('keyframeRetryMs', 'keyframeRetryMs must be a positive number of ms', '> 0 ms');
    }
    this.stopSignal = new Promise((resolve) => {
      this.signalStop = () => resolve(new SignalingError({ reason: 'CONNECTION-LOST', detail: 'session closed' }));
    });
  }

  /**
   * Starts joining. Resolves at the first successful join; rejects if the session ends before
   * one (the rejection is also reported through `error`/`closed`, and is safe to ignore).
   */
  start(): Promise<ConnectedInfo> {
    if (this.firstJoin) return this.firstJoin;
    if (this.stopped) {
      this.firstJoin = Promise.reject(new SignalingError({ reason: 'CONNECTION-LOST', detail: 'the session was already closed' }));
      this.firstJoin.catch(() => undefined);
      return this.firstJoin;
    }
    this.firstJoin = new Promise<ConnectedInfo>((resolve, reject) => {
      this.settleFirstJoin = { resolve, reject };
    });
    this.firstJoin.catch(() => undefined);
    this.loopDone = this.loop().catch((err: unknown) => {
      // Only a bug gets here; the session still ends with a typed error instead of an unhandled rejection.
      this.stopped = true;
      this.finish(new SignalingError({ reason: 'CONNECTION-LOST', detail: `internal error: ${describeError(err)}`, rejoin: 'never' }));
    });
    return this.firstJoin;
  }

  /** True while media flows on the current connection. */
  get connected(): boolean {
    return this.isConnected;
  }

  private isConnected = false;

  /** Sends one RTP packet on the upstream video track; dropped while not connected. Returns whether it was sent. */
  writeVideoRtp(packet: RtpPacket): boolean {
    const track = this.connection?.outgoingTrack;
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
    this.closeDone ??= (async () => {
      this.stopped = true;
      this.signalStop();
      clearTimeout(this.sleepTimer);
      await this.connection?.close();
      await this.loopDone;
      this.finish(undefined);
    })();
    return this.closeDone;
  }

  private async loop(): Promise<void> {
    let lastError: SignalingError | undefined;
    while (!this.stopped) {
      const error = await this.attempt();
      if (this.stopped) return;
      lastError = error;
      if (error.rejoin === 'never' || !this.rejoinPolicy) break;
      this.failures++;
      if (this.failures > this.rejoinPolicy.maxAttempts) {
        lastError = new SignalingError({
          reason: error.reason,
          closeCode: error.closeCode,
          rejoin: error.rejoin,
          detail: `gave up after ${this.rejoinPolicy.maxAttempts} rejoin attempts`,
        });
        break;
      }
      // An invalid ticket is fixed by the fresh one the next attempt fetches: no need to wait first.
      const delayMs = error.rejoin === 'new-ticket' && this.failures === 1 ? 0 : backoffDelay(this.rejoinPolicy, this.failures);
      this.safeEmit('rejoining', { attempt: this.failures, delayMs, error });
      await Promise.race([this.stopSignal, new Promise<void>((r) => (this.sleepTimer = setTimeout(r, delayMs)))]);
      clearTimeout(this.sleepTimer);
    }
    if (!this.stopped) {
      this.stopped = true;
      this.finish(lastError);
    }
  }

  private finish(error: SignalingError | undefined): void {
    if (this.closedEmitted) return;
    this.closedEmitted = true;
    this.clearReceivers();
    this.settleFirstJoin?.reject(error ?? new SignalingError({ reason: 'CONNECTION-LOST', detail: 'closed before the first join' }));
    if (error && this.listenerCount('error') > 0) this.safeEmit('error', error);
    this.safeEmit('closed', { error });
  }

  // A throwing listener belongs to the host: it must neither break the session's bookkeeping nor
  // keep the listeners after it from running, so each one is called on its own.
  private safeEmit<K extends keyof SessionEvents>(event: K, ...args: SessionEvents[K]): void {
    for (const listener of this.rawListeners(event) as ((...a: unknown[]) => unknown)[]) {
      try {
        listener.apply(this, args);
      } catch {
        // Swallowed on purpose: the host's listener failed, the session keeps its promises.
      }
    }
  }

  private async attempt(): Promise<SignalingError> {
    let ticket: Ticket;
    try {
      const got = await Promise.race([this.options.getTicket(), this.stopSignal]);
      if (got instanceof SignalingError) return got;
      ticket = got;
      if (!ticket || typeof ticket.url !== 'string' || typeof ticket.access_token !== 'string' || typeof ticket.id !== 'string') {
        throw new TypeError('getTicket returned something that is not a ticket');
      }
    } catch (err) {
      // getTicket is the host's code: it may reject with anything, undefined and null included.
      const retryable = (err as { retryable?: unknown } | null | undefined)?.retryable;
      return new SignalingError({
        reason: 'TICKET-FAILED',
        detail: describeError(err),
        rejoin: retryable === false || err instanceof TypeError || err instanceof InputError ? 'never' : 'backoff',
      });
    }
    if (this.stopped) return new SignalingError({ reason: 'CONNECTION-LOST', detail: 'closed' });
    const conn = new SignalingConnection({
      ticket,
      settings: this.settings,
      timeouts: this.timeouts,
      loopbackOnly: this.options.loopbackOnly,
      iceServers: this.options.iceServers,
    });
    this.connection = conn;
    const ended = new Promise<SignalingError>((resolve) => conn.once('ended', resolve));
    conn.on('connected', ({ clientId }) => {
      this.failures = 0;
      this.joins++;
      this.stats.joins = this.joins;
      this.isConnected = true;
      const info = { clientId, joins: this.joins };
      this.settleFirstJoin?.resolve(info);
      this.safeEmit('connected', info);
    });
    conn.on('track', (track, receiver) => this.receive(conn, track, receiver));
    conn.on('keyframeRequest', () => this.safeEmit('keyframeRequest'));
    conn.on('renegotiated', () => this.stats.renegotiations++);
    conn.on('notice', (notice) => this.safeEmit('notice', notice));
    conn.start();
    const error = await Promise.race([ended, this.stopSignal]);
    this.isConnected = false;
    this.clearReceivers();
    await conn.close();
    return error;
  }

  private receive(conn: SignalingConnection, track: MediaStreamTrack, receiver: RTCRtpReceiver): void {
    if (track.kind !== 'video') return;
    const codec = codecFromMime(track.codec?.mimeType);
    if (!codec) return;
    // A track announced again (its m-line went inactive and back) starts over with one assembler.
    this.dropReceiver(track);
    const requestKeyframe = (): void => {
      if (track.ssrc === undefined) return;
      this.stats.keyframeRequests++;
      receiver.sendRtcpPLI(track.ssrc).catch(() => undefined);
    };
    const assembler = new FrameAssembler({
      codec,
      onFrame: (frame) => {
        this.stats.frames++;
        this.safeEmit('frame', { ...frame, trackId: track.id ?? (track.ssrc === undefined ? undefined : String(track.ssrc)) });
      },
      onKeyframeNeeded: () => requestKeyframe(),
    });
    // The first PLI can reach the server before the publisher's stream does: repeat until a key frame.
    const retry = setInterval(() => {
      if (assembler.waitingForKeyframe) requestKeyframe();
    }, this.options.keyframeRetryMs ?? 1000);
    const { unSubscribe } = track.onReceiveRtp.subscribe((rtp) => {
      if (this.connection === conn) assembler.push(rtp);
    });
    this.receivers.set(track, { retry, unsubscribe: unSubscribe });
  }

  private dropReceiver(track: MediaStreamTrack): void {
    const r = this.receivers.get(track);
    if (!r) return;
    clearInterval(r.retry);
    r.unsubscribe();
    this.receivers.delete(track);
  }

  private clearReceivers(): void {
    for (const track of [...this.receivers.keys()]) this.dropReceiver(track);
  }
}

/** What the session holds for one received track. */
interface Receiving {
  retry: NodeJS.Timeout;
  unsubscribe: () => void;
}

function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 200);
  return err === undefined || err === null ? `rejected with ${String(err)}` : 'unknown error';
}

function checkPolicy(p: RejoinPolicy): void {
  if (!Number.isFinite(p.baseDelayMs) || p.baseDelayMs < 0) throw new InputError('rejoin.baseDelayMs', 'rejoin.baseDelayMs must be a number >= 0', '>= 0 ms');
  if (!Number.isFinite(p.maxDelayMs) || p.maxDelayMs < p.baseDelayMs) {
    throw new InputError('rejoin.maxDelayMs', 'rejoin.maxDelayMs must be a number >= rejoin.baseDelayMs', '>= baseDelayMs');
  }
  if (!(p.maxAttempts >= 0) || (Number.isFinite(p.maxAttempts) && !Number.isInteger(p.maxAttempts))) {
    throw new InputError('rejoin.maxAttempts', 'rejoin.maxAttempts must be a whole number >= 0 (or Infinity)', 'integer >= 0');
  }
}
