/**
 * A downstream signaling session whose WebRTC receive path (ICE, DTLS, SRTP, RTP, depacketizing)
 * runs in a worker thread: the worker has its own module cache, so the host's werift is left as
 * it is, and per-packet work leaves the host's event loop. Frames and events come back as
 * messages; tickets are fetched on this thread (the ticket source holds credentials and a pool).
 */
import { EventEmitter } from 'node:events';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EncodedFrame } from '../frames/types';
import { weriftSpeedupsStatus, type WeriftSpeedupsStatus } from './werift-speedups';
import type { Ticket } from '../streaming/types';
import { SignalingError } from './close-reasons';
import type { ConnectedInfo, RemoteStreamInfo, SessionEvents, SessionOptions } from './session';
import { fromWire, wireError } from './session-thread-errors';
import type { FromWorker, ToWorker, WireError } from './session-thread-protocol';
import { emitGuarded } from '../util/emit-guarded';

/** Options of a session run in a worker: those of SignalingSession that are data, and the ticket source. */
export type ThreadSessionOptions = Omit<SessionOptions, 'getTicket'> & {
  getTicket: () => Promise<Ticket>;
  /** The werift speed-ups in this session's thread (default: as this process has them). */
  weriftSpeedups?: boolean;
};

// Beside this file: the .js once built, the .ts when run from sources (see the worker's header).
const WORKER_FILE = join(__dirname, `session-thread-worker${extname(__filename)}`);

/** The events and the calls of SignalingSession that a downstream consumer uses, across a thread. */
export class ThreadSession extends EventEmitter<SessionEvents> {
  readonly #worker: Worker;
  readonly #getTicket: () => Promise<Ticket>;
  readonly #streams = new Map<string, RemoteStreamInfo>();
  #werift?: WeriftSpeedupsStatus;
  #started?: { resolve: (info: ConnectedInfo) => void; reject: (err: Error) => void };
  #closing?: Promise<void>;
  #failed = false;
  readonly #exited: Promise<void>;

  constructor(options: ThreadSessionOptions) {
    super();
    const { getTicket, weriftSpeedups, ...data } = options;
    this.#getTicket = getTicket;
    // The worker has its own werift: a host that turned the speed-ups off has them off there too.
    const speedupsOff = weriftSpeedups === false || weriftSpeedupsStatus().reason === 'turned off';
    this.#worker = new Worker(WORKER_FILE, { workerData: { options: data, speedupsOff } });
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.on('message', (message: FromWorker) => this.#onMessage(message));
    this.#worker.on('error', (err) => this.#fail(err));
    // A thread that ends without being asked (it crashed) ends the session.
    this.#worker.once('exit', (code) => {
      if (!this.#closing) this.#fail(new Error(`the thread exited with code ${code}`));
    });
  }

  /** Whether the werift speed-ups run in this session's thread, as the thread said once joined. */
  get weriftStatus(): WeriftSpeedupsStatus | undefined {
    return this.#werift;
  }

  /** The remote streams being received now, by stream id. */
  get streams(): ReadonlyMap<string, RemoteStreamInfo> {
    return this.#streams;
  }

  /** Joins; resolves at the first join like SignalingSession.start(). */
  start(): Promise<ConnectedInfo> {
    return new Promise((resolve, reject) => {
      this.#started = { resolve, reject };
      this.#send({ type: 'start' });
    });
  }

  /** Asks for a key frame on one stream (or all). */
  requestKeyframe(streamId?: string): void {
    this.#send({ type: 'keyframe', streamId });
  }

  /** Leaves and ends the worker. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#send({ type: 'close' });
      const timer = setTimeout(() => void this.#worker.terminate(), 5000);
      await this.#exited;
      clearTimeout(timer);
    })();
    return this.#closing;
  }

  #send(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  #onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'ticket':
        this.#getTicket().then(
          // The token is not enumerable (so it stays out of logs), and a structured clone would drop it.
          (ticket) => this.#send({ type: 'ticket', id: message.id, ticket: { id: ticket.id, url: ticket.url, direction: ticket.direction, access_token: ticket.access_token } }),
          (err: unknown) => this.#send({ type: 'ticket', id: message.id, error: wireError(err) }),
        );
        return;
      case 'started':
        this.#werift = message.werift;
        this.#started?.resolve(message.info);
        return;
      case 'startFailed':
        this.#started?.reject(fromWire(message.error));
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
    }
  }

  #relay(event: keyof SessionEvents, arg: Record<string, unknown>): void {
    if (event === 'streamAdded') this.#streams.set(String(arg.streamId), { codec: arg.codec as RemoteStreamInfo['codec'] });
    if (event === 'streamRemoved') this.#streams.delete(String(arg.streamId));
    const error = arg.error === undefined ? undefined : fromWire(arg.error as WireError);
    const payload = error ? { ...arg, error } : arg;
    if (event === 'error') {
      if (this.listenerCount('error') > 0) emitGuarded(this, 'error', [error as SignalingError]);
      return;
    }
    // A host listener that throws must not reach the message handler (and the host's process).
    emitGuarded(this, event, [payload] as never);
  }

  #fail(err: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    const error = new SignalingError({ reason: 'CONNECTION-LOST', detail: `session thread failed: ${err.message}` });
    this.#started?.reject(error);
    emitGuarded(this, 'closed', [{ error }]);
  }
}

