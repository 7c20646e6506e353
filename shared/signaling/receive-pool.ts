/**
 * The process's receive workers: a few worker threads (about one per core), each running the
 * WebRTC receive path (ICE, DTLS, SRTP, RTP, depacketizing) of many signaling sessions. A thread
 * holds its own copy of werift and of this package's modules, which is most of what it costs: shared,
 * that is paid once per worker instead of once per watcher. Workers run the werift speed-ups as the
 * process setting has them when they start (setWeriftSpeedups, VS_WERIFT_SPEEDUPS=0); sessions are
 * seated in workers of the current setting only, and a worker of an earlier one ends with its sessions.
 */
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { InputError } from '../errors';
import { weriftSpeedupsOn } from './werift-speedups/status';
import type { FromWorker, ReceiveWorkerInit, ToWorker } from './session-thread-protocol';

// Beside this file: the .js once built, the .ts when run from sources (see the worker's header).
const WORKER_FILE = join(__dirname, `receive-worker${extname(__filename)}`);

/** The environment variable that sets the number of receive workers (a whole number, or `auto`). */
export const RECEIVE_WORKERS_ENV = 'VS_RECEIVE_WORKERS';
/** Most receive workers one process may be set to. */
const MAX_WORKERS = 64;
/**
 * Sessions a worker carries before another worker is started (while fewer than the pool's size run).
 * One stream's receive path takes a few percent of a core, so a worker has room for many; a second
 * thread (about 25 MB: V8, werift, this package) pays off only once there is load to spread.
 */
export const DEFAULT_SPREAD_AFTER = 8;

/** What the pool needs of a session it carries. */
export interface PoolClient {
  /** A message of this session's worker for it. */
  onMessage(message: FromWorker): void;
  /** The worker ended without being asked (it crashed): the session is no longer there. */
  onWorkerLost(error: Error): void;
}

/** A place in the pool: the session's id in its worker. */
export interface PoolSeat {
  readonly sid: number;
  readonly threadId: number;
  /** Posts to the session's worker. */
  send(message: ToWorker, transfer?: ArrayBuffer[]): void;
  /** The session is gone from its worker: the seat is freed, and a worker left empty ends. Idempotent. */
  leave(): void;
}

/** One receive worker as the pool reports it. */
export interface ReceiveWorkerInfo {
  threadId: number;
  sessions: number;
  /** Whether the sessions of this worker run with the werift speed-ups. */
  weriftSpeedups: boolean;
  /** The speed-ups the worker's werift actually has applied, as it said at its latest join. */
  applied: string[];
}

class ReceiveWorker {
  readonly thread: Worker;
  readonly speedupsOff: boolean;
  readonly clients = new Map<number, PoolClient>();
  applied: string[] = [];
  /** Asked to end (empty): its exit is no crash. */
  retiring = false;

  constructor(speedupsOff: boolean, lost: (worker: ReceiveWorker, error: Error) => void) {
    this.speedupsOff = speedupsOff;
    this.thread = new Worker(WORKER_FILE, { workerData: { speedupsOff } satisfies ReceiveWorkerInit });
    let failure: Error | undefined;
    this.thread.on('message', (message: FromWorker) => {
      if (message.type === 'started') this.applied = message.applied;
      this.clients.get(message.sid)?.onMessage(message);
    });
    this.thread.on('error', (err) => (failure ??= err));
    this.thread.once('exit', (code) => {
      if (!this.retiring) lost(this, new Error(failure ? `the receive worker failed: ${failure.message}` : `the receive worker exited with code ${code}`));
    });
  }
}

/** The process-wide pool of receive workers. */
export class ReceivePool {
  readonly #workers: ReceiveWorker[] = [];
  #size?: number;
  #spreadAfter = DEFAULT_SPREAD_AFTER;
  #nextSid = 1;

  /** Workers at most: as set, else VS_RECEIVE_WORKERS, else one per core. */
  get size(): number {
    return this.#size ?? workersFromEnv() ?? defaultWorkers();
  }

  /**
   * Sets the number of workers, or 'auto' for one per core, and optionally the
   * sessions a worker carries before another starts; workers above the count end as their sessions leave.
   */
  setSize(count: number | 'auto', spreadAfter = DEFAULT_SPREAD_AFTER): void {
    if (!Number.isInteger(spreadAfter) || spreadAfter < 1) throw new InputError('invalid_input', 'spreadAfter must be a whole number of sessions, at least 1', { field: 'spreadAfter', limit: '>= 1' });
    this.#size = count === 'auto' ? undefined : checkCount(count, 'receiveWorkers');
    this.#spreadAfter = spreadAfter;
  }

  /** Throws the InputError of a bad VS_RECEIVE_WORKERS before any session is seated. */
  checkSettings(): void {
    if (this.size < 1) throw new InputError('invalid_input', 'no receive workers', { field: 'receiveWorkers', limit: '>= 1' });
  }

  /** The workers running now. */
  workers(): ReceiveWorkerInfo[] {
    return this.#workers.map((w) => ({ threadId: w.thread.threadId, sessions: w.clients.size, weriftSpeedups: !w.speedupsOff, applied: [...w.applied] }));
  }

  /**
   * Seats a session in the least busy worker, starting a new worker when every one carries
   * `spreadAfter` sessions and there are fewer than `size`. Workers started before the process
   * setting of the werift speed-ups changed take no new session.
   */
  join(client: PoolClient): PoolSeat {
    const speedupsOff = !weriftSpeedupsOn();
    const same = this.#workers.filter((w) => w.speedupsOff === speedupsOff && !w.retiring);
    let worker = same.reduce<ReceiveWorker | undefined>((best, w) => (!best || w.clients.size < best.clients.size ? w : best), undefined);
    if (!worker || (worker.clients.size >= this.#spreadAfter && same.length < this.size)) {
      worker = new ReceiveWorker(speedupsOff, (w, error) => this.#lost(w, error));
      this.#workers.push(worker);
    }
    const sid = this.#nextSid++;
    const seated = worker;
    seated.clients.set(sid, client);
    let left = false;
    return {
      sid,
      threadId: seated.thread.threadId,
      send: (message, transfer) => {
        if (!left && !seated.retiring) seated.thread.postMessage(message, transfer);
      },
      leave: () => {
        if (left) return;
        left = true;
        seated.clients.delete(sid);
        if (seated.clients.size === 0) this.#retire(seated);
      },
    };
  }

  /**
   * Ends one worker as a crash would: its sessions go on in another. For tests, and for an operator
   * who suspects one worker. Resolves once the thread has ended; false when no worker has that id.
   */
  async terminateWorker(threadId: number): Promise<boolean> {
    const worker = this.#workers.find((w) => w.thread.threadId === threadId && !w.retiring);
    if (!worker) return false;
    const exited = new Promise<void>((resolve) => worker.thread.once('exit', () => resolve()));
    await worker.thread.terminate();
    await exited;
    return true;
  }

  #retire(worker: ReceiveWorker): void {
    worker.retiring = true;
    this.#remove(worker);
    // Its sessions have closed: nothing in it is worth a graceful end.
    void worker.thread.terminate();
  }

  #lost(worker: ReceiveWorker, error: Error): void {
    this.#remove(worker);
    const clients = [...worker.clients.values()];
    worker.clients.clear();
    for (const client of clients) client.onWorkerLost(error);
  }

  #remove(worker: ReceiveWorker): void {
    const at = this.#workers.indexOf(worker);
    if (at >= 0) this.#workers.splice(at, 1);
  }
}

function defaultWorkers(): number {
  return Math.max(1, Math.min(MAX_WORKERS, availableParallelism()));
}

function workersFromEnv(): number | undefined {
  const raw = process.env[RECEIVE_WORKERS_ENV]?.trim();
  if (!raw || raw === 'auto') return undefined;
  return checkCount(Number(raw), RECEIVE_WORKERS_ENV);
}

function checkCount(count: number, field: string): number {
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new InputError('invalid_input', `${field} must be a whole number from 1 to ${MAX_WORKERS}, or 'auto' (one per core)`, { field, limit: `1-${MAX_WORKERS}` });
  }
  return count;
}

let pool: ReceivePool | undefined;

/** This process's receive pool. */
export function receivePool(): ReceivePool {
  pool ??= new ReceivePool();
  return pool;
}

/**
 * Sets how many receive workers the face watchers of this process share: a
 * whole number, or 'auto' (one per core, the default; VS_RECEIVE_WORKERS sets it too); and how many
 * sessions a worker carries before the next one starts (default 8).
 */
export function setReceiveWorkers(count: number | 'auto', spreadAfter?: number): void {
  receivePool().setSize(count, spreadAfter);
}

/** The receive workers running now, with their session counts. */
export function receiveWorkers(): ReceiveWorkerInfo[] {
  return receivePool().workers();
}
