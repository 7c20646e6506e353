/**
 * A downstream signaling session whose WebRTC receive path (ICE, DTLS, SRTP, RTP, depacketizing)
 * runs in one of the process's receive workers (receive-pool.ts), beside other sessions: per-packet
 * work leaves the host's event loop, and the worker's werift is its own. Frames and events come back
 * as messages; tickets are fetched on this thread (the ticket source holds credentials and a pool).
 * A worker that dies takes only its own sessions: each goes on in another worker, as after a dropped
 * connection (`rejoining`, then `connected` again), as far as its rejoin policy allows.
 */
import { EventEmitter } from 'node:events';
import type { EncodedFrame } from '../frames/types';
import type { Ticket } from '../streaming/types';
import { emitGuarded } from '../util/emit-guarded';
import { rejoinDelay } from './backoff';
import { SignalingError } from './close-reasons';
import { receivePool, type PoolSeat } from './receive-pool';
import { DEFAULT_REJOIN, SignalingSession, type ConnectedInfo, type RejoinPolicy, type RemoteStreamInfo, type SessionEvents, type SessionOptions } from './session';
import { fromWire, wireError } from './session-thread-errors';
import type { FromWorker, WireError } from './session-thread-protocol';
import type { WeriftSpeedupsStatus } from './werift-speedups';

/** A worker that has carried a joined session this long (ms) has shown it works: its loss starts the count afresh. */
const SETTLED_MS = 10_000;

/**
 * Options of a session run in a worker: those of SignalingSession that are data, and the ticket
 * source. The worker runs the werift speed-ups as the process setting has them (setWeriftSpeedups).
 */
export type ThreadSessionOptions = Omit<SessionOptions, 'getTicket'> & {
  getTicket: (signal?: AbortSignal) => Promise<Ticket>;
};

/** How long close() waits for the worker to confirm before it lets the session go anyway. */
const CLOSE_WAIT_MS = 5000;

/** The events and the calls of SignalingSession that a downstream consumer uses, across a thread. */
export class ThreadSession extends EventEmitter<SessionEvents> {
  readonly #getTicket: (signal?: AbortSignal) => Promise<Ticket>;
  /** Aborted by close(): a ticket request still retrying (a room refusing tickets) ends with the session. */
  readonly #stopping = new AbortController();
  readonly #data: Omit<SessionOptions, 'getTicket'>;
  readonly #rejoin?: RejoinPolicy;
  readonly #streams = new Map<string, RemoteStreamInfo>();
  #seat?: PoolSeat;
  #werift?: WeriftSpeedupsStatus;
  #started?: Promise<ConnectedInfo>;
  #settleStart?: { resolve: (info: ConnectedInfo) => void; reject: (err: Error) => void };
  #joins = 0;
  /** Workers lost in a row, without a join in between. */
  #losses = 0;
  /** When the session last joined (performance.now()). */
  #connectedAt = Number.NEGATIVE_INFINITY;
  #moveTimer?: NodeJS.Timeout;
  #closing?: Promise<void>;
  #gone?: () => void;
  #ended = false;

  /** Checks the options as SignalingSession does (InputError); no worker is used before start(). */
  constructor(options: ThreadSessionOptions) {
    super();
    const { getTicket, ...data } = options;
    // The same checks, on this thread, so a bad option is refused before anything starts.
    new SignalingSession({ ...data, getTicket });
    receivePool().checkSettings();
    this.#getTicket = getTicket;
    this.#data = data;
    this.#rejoin = data.rejoin === false ? undefined : { ...DEFAULT_REJOIN, ...data.rejoin };
  }

  /** Whether the werift speed-ups run in this session's worker, as the worker said once joined. */
  get weriftStatus(): WeriftSpeedupsStatus | undefined {
    return this.#werift;
  }

  /** The remote streams being received now, by stream id. */
  get streams(): ReadonlyMap<string, RemoteStreamInfo> {
    return this.#streams;
  }

  /** The thread id of the worker that carries this session now (undefined before start and after close). */
  get workerThreadId(): number | undefined {
    return this.#seat?.threadId;
  }

  /** Joins; resolves at the first join like SignalingSession.start(). */
  start(): Promise<ConnectedInfo> {
    if (this.#started) return this.#started;
    if (this.#closing || this.#ended) {
      this.#started = Promise.reject(SignalingError.from({ reason: 'CONNECTION-LOST', detail: 'the session was already closed' }));
    } else {
      this.#started = new Promise((resolve, reject) => (this.#settleStart = { resolve, reject }));
      this.#seatAndStart();
    }
    this.#started.catch(() => undefined);
    return this.#started;
  }

  /** Asks for a key frame on one stream (or all). */
  requestKeyframe(streamId?: string): void {
    if (this.#seat) this.#seat.send({ type: 'keyframe', sid: this.#seat.sid, streamId });
  }

  /** Leaves the room and frees its place in the worker (a worker left empty ends). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#stopping.abort();
      clearTimeout(this.#moveTimer);
      const seat = this.#seat;
      if (seat && !this.#ended) {
        const gone = new Promise<void>((resolve) => (this.#gone = resolve));
        seat.send({ type: 'close', sid: seat.sid });
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
      }
      this.#leaveSeat();
      this.#end(undefined);
    })();
    return this.#closing;
  }

  #seatAndStart(): void {
    const seat = receivePool().join({ onMessage: (m) => this.#onMessage(seat, m), onWorkerLost: (err) => this.#workerLost(seat, err) });
    this.#seat = seat;
    seat.send({ type: 'start', sid: seat.sid, options: this.#data });
  }

  #leaveSeat(): void {
    this.#seat?.leave();
    this.#seat = undefined;
  }

  #onMessage(seat: PoolSeat, message: FromWorker): void {
    if (seat !== this.#seat) return;
    switch (message.type) {
      case 'ticket':
        this.#getTicket(this.#stopping.signal).then(
          // The token is not enumerable (so it stays out of logs), and a structured clone would drop it.
          (ticket) => seat.send({ type: 'ticket', sid: seat.sid, id: message.id, ticket: { id: ticket.id, url: ticket.url, direction: ticket.direction, access_token: ticket.access_token } }),
          (err: unknown) => seat.send({ type: 'ticket', sid: seat.sid, id: message.id, error: wireError(err) }),
        );
        return;
      case 'started':
        this.#werift = message.werift;
        this.#settleStart?.resolve({ ...message.info, joins: Math.max(1, this.#joins) });
        return;
      case 'startFailed':
        this.#settleStart?.reject(fromWire(message.error));
        return;
      case 'frame': {
        const f = message.frame;
        const data = Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength);
        emitGuarded(this, 'frame', [{ ...f, data } as EncodedFrame]);
        return;
      }
      case 'event':
        this.#relay(message.event, message.arg);
        return;
      case 'gone':
        this.#leaveSeat();
        this.#gone?.();
        return;
    }
  }

  #relay(event: keyof SessionEvents, arg: Record<string, unknown>): void {
    if (event === 'streamAdded') this.#streams.set(String(arg.streamId), { codec: arg.codec as RemoteStreamInfo['codec'] });
    if (event === 'streamRemoved') this.#streams.delete(String(arg.streamId));
    const error = arg.error === undefined ? undefined : fromWire(arg.error as WireError);
    if (event === 'error') {
      if (this.listenerCount('error') > 0) emitGuarded(this, 'error', [error as SignalingError]);
      return;
    }
    if (event === 'closed') {
      // Closed by close() (the worker confirms with 'gone'), or the session gave up by itself.
      if (!this.#closing) this.#end(error as SignalingError | undefined, false);
      return;
    }
    if (event === 'connected') {
      // Joins counted across workers: a session moved to another worker has joined once more.
      this.#connectedAt = performance.now();
      this.#joins++;
      emitGuarded(this, 'connected', [{ ...(arg as unknown as ConnectedInfo), joins: this.#joins }]);
      return;
    }
    // A host listener that throws must not reach the message handler (and the host's process).
    emitGuarded(this, event, [error ? { ...arg, error } : arg] as never);
  }

  /** The worker died: the session goes on in another one, as after a dropped connection, or ends. */
  #workerLost(seat: PoolSeat, err: Error): void {
    if (seat !== this.#seat) return;
    this.#seat = undefined;
    if (this.#closing || this.#ended) {
      this.#gone?.();
      return;
    }
    const error = SignalingError.from({ reason: 'CONNECTION-LOST', detail: `receive worker lost: ${err.message}` });
    this.#dropStreams();
    // A worker that dies soon after each join (one that cannot run at all) is no passing fault: the
    // losses add up, the waits grow and the session ends, instead of rejoining at once for ever.
    if (performance.now() - this.#connectedAt > SETTLED_MS) this.#losses = 0;
    this.#losses++;
    if (!this.#rejoin || this.#losses > this.#rejoin.maxAttempts) {
      this.#end(error);
      return;
    }
    const delayMs = this.#losses === 1 ? 0 : rejoinDelay(this.#rejoin, this.#losses - 1);
    emitGuarded(this, 'rejoining', [{ attempt: this.#losses, delayMs, error }]);
    if (this.#closing || this.#ended) return;
    this.#moveTimer = setTimeout(() => {
      if (!this.#closing && !this.#ended) this.#seatAndStart();
    }, delayMs);
  }

  #dropStreams(): void {
    for (const streamId of [...this.#streams.keys()]) {
      this.#streams.delete(streamId);
      emitGuarded(this, 'streamRemoved', [{ streamId }]);
    }
  }

  /** The session is over: once, with the error that ended it (none after close()). */
  #end(error: SignalingError | undefined, announce = true): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#moveTimer);
    this.#dropStreams();
    this.#settleStart?.reject(error ?? SignalingError.from({ reason: 'CONNECTION-LOST', detail: 'closed before the first join' }));
    if (announce && error && this.listenerCount('error') > 0) emitGuarded(this, 'error', [error]);
    emitGuarded(this, 'closed', [{ error }]);
  }
}
