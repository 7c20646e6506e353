import { closeSync, openSync, readFile } from 'node:fs';
import type { EventEmitter } from 'node:events';
import { ClientError, codedError } from '../errors';
import type { ClipEvent } from '../clips/events';
import type { ArrivedEvent, FaceQuality, HistoryStatus, LeftEvent, MatchEvent, UnknownEvent, WatchEvent, WatcherEvents } from '../watch/events';
import { DEFAULT_RETENTION } from './sql-store';
import type { HistoryStore, MediaKind, RetentionPolicy, SweepReceipt, VisitPatch } from './types';

export type { HistoryStatus } from '../watch/events';

/** Codes of the recorder's errors: a write given up after its attempts, a write the full queue refused, a sweep that failed. */
export type HistoryRecorderErrorCode = 'history_write_failed' | 'history_queue_full' | 'history_sweep_failed';

/** A failure of the history's recorder (the store's own error, when there is one, is named in the message by its code). */
export class HistoryRecorderError extends codedError<HistoryRecorderErrorCode>('HistoryRecorderError') {}

/** How a recorder queues, retries and sweeps. */
export interface HistoryRecorderOptions {
  /** Retention (default 30 days, 2 GB of media). */
  retention?: Partial<RetentionPolicy>;
  /** Writes waiting at most (default 1000); one more is dropped. */
  maxQueue?: number;
  /** Bytes of pictures waiting at most (default 64 MB); a picture more is dropped. */
  maxQueueBytes?: number;
  /** Attempts of one write (default 4: the first and three retries). */
  attempts?: number;
  /** Wait before the first retry, doubling (default 200 ms). */
  retryDelayMs?: number;
  /** Between sweeps (default one hour). */
  sweepEveryMs?: number;
  /** How long close() lets the queue drain before what is left counts as dropped (default 5 s). */
  closeWaitMs?: number;
  /** A write dropped or a sweep failed (at most once per code in 30 s). */
  onError?: (error: ClientError) => void;
  /** A sweep finished (whatever it removed). */
  onSweep?: (receipt: SweepReceipt) => void;
}

const HOUR_MS = 3_600_000;
/** The same failure is told at most once in this span (it is still counted). */
const REPEAT_ERROR_MS = 30_000;

/** One write: what it does, the bytes of pictures it holds, and what to let go of when it is dropped. */
interface Job {
  run(): Promise<void>;
  bytes: number;
  /** A row (created, updated) or media (a picture, a clip): at close, rows go first. */
  kind: 'row' | 'media';
  release?(): void;
}

/** What the recorder remembers of a visit under way, to keep its best score and best face. */
interface OpenVisit {
  visitId: string;
  bestScore: number | null;
  quality: FaceQuality | null;
}

/**
 * Writes each visit of a watcher into a history store as it goes: `arrived` makes the row with its
 * face crop and snapshot, `match` and `unknown` append events and keep the best score and the face of
 * the best quality, `left` closes the visit, `clip` names its clip. Events are taken in at once and
 * written off the event path, in order, by one bounded queue; a write that fails is tried again a
 * few times, then dropped and counted. A retention sweep runs at start() and every hour. One owner
 * closes it (idempotent); it never closes the store, which stays its owner's.
 */
export class HistoryRecorder {
  readonly #store: HistoryStore;
  readonly #policy: RetentionPolicy;
  readonly #o: Required<Omit<HistoryRecorderOptions, 'retention' | 'onError' | 'onSweep'>> & Pick<HistoryRecorderOptions, 'onError' | 'onSweep'>;
  readonly #queue: Job[] = [];
  /** Visits under way by who they are of (as presence keys them), so a match or unknown finds its visit. */
  readonly #open = new Map<string, OpenVisit>();
  readonly #reported = new Map<string, number>();
  #queuedBytes = 0;
  #draining?: Promise<void>;
  #sweepTimer?: NodeJS.Timeout;
  #sweeping?: Promise<void>;
  #closed?: Promise<void>;
  #status: HistoryStatus = { written: 0, dropped: 0, queued: 0 };

  constructor(store: HistoryStore, options: HistoryRecorderOptions = {}) {
    this.#store = store;
    this.#policy = { ...DEFAULT_RETENTION, ...options.retention };
    this.#o = {
      maxQueue: options.maxQueue ?? 1000,
      maxQueueBytes: options.maxQueueBytes ?? 64 * 1024 ** 2,
      attempts: options.attempts ?? 4,
      retryDelayMs: options.retryDelayMs ?? 200,
      sweepEveryMs: options.sweepEveryMs ?? HOUR_MS,
      closeWaitMs: options.closeWaitMs ?? 5000,
      onError: options.onError,
      onSweep: options.onSweep,
    };
  }

  /** The store written to. */
  get store(): HistoryStore {
    return this.#store;
  }

  /** Counts so far (a copy). */
  status(): HistoryStatus {
    return { ...this.#status, queued: this.#queue.length };
  }

  /** Sweeps now and every `sweepEveryMs` until close(). */
  start(): void {
    if (this.#closed || this.#sweepTimer) return;
    const every = (): void => {
      this.#sweepTimer = setTimeout(() => {
        void this.sweep().finally(() => {
          if (!this.#closed) every();
        });
      }, this.#o.sweepEveryMs);
      this.#sweepTimer.unref();
    };
    void this.sweep();
    every();
  }

  /** One retention sweep (one at a time); a failure is counted and told, never thrown. */
  sweep(now?: Date): Promise<void> {
    this.#sweeping ??= this.#store
      .sweep(this.#policy, now)
      .then(
        (receipt) => {
          this.#status.last_sweep = receipt;
          this.#o.onSweep?.(receipt);
        },
        (err: unknown) => this.#fail('history_sweep_failed', 'the history\'s retention sweep failed', err),
      )
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  /**
   * Listens to a watcher's visit events until the returned function is called, for a recorder its
   * host keeps (the watcher's `history` option needs none): it hears only what the watcher's `events` lets out.
   */
  attach(watcher: EventEmitter<WatcherEvents>): () => void {
    const take = (e: WatchEvent | ClipEvent): void => this.record(e);
    const names = ['arrived', 'match', 'unknown', 'left', 'clip'] as const;
    for (const name of names) watcher.on(name, take);
    return () => {
      for (const name of names) watcher.off(name, take);
    };
  }

  /** Takes one event in; returns at once (the writes happen later, in order). Other events are ignored. */
  record(e: WatchEvent | ClipEvent): void {
    if (this.#closed) return;
    switch (e.event) {
      case 'arrived':
        return this.#arrived(e);
      case 'match':
      case 'unknown':
        return this.#face(e);
      case 'left':
        return this.#left(e);
      case 'clip':
        return this.#clip(e);
      default:
        return;
    }
  }

  /** Resolves once every write queued so far is done (written or dropped). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /**
   * Stops taking events and the sweeps, lets the queue drain (up to closeWaitMs), counts what is
   * left as dropped. The rows go first (every visit's end among them, so no visit stays open for
   * ever behind a backlog of pictures); a picture never comes before its row. Idempotent.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearTimeout(this.#sweepTimer);
      const waiting = this.#queue.splice(0);
      this.#queue.push(...waiting.filter((j) => j.kind === 'row'), ...waiting.filter((j) => j.kind === 'media'));
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#o.closeWaitMs)));
      await Promise.race([Promise.all([this.flush(), this.#sweeping]), waited]);
      clearTimeout(timer);
      for (const job of this.#queue.splice(0)) this.#drop(job);
      this.#open.clear();
    })();
    return this.#closed;
  }

  #arrived(e: ArrivedEvent): void {
    this.#open.set(keyOf(e), { visitId: e.visit_id, bestScore: e.score, quality: e.quality });
    const patch: VisitPatch = {
      visit_id: e.visit_id,
      kind: e.kind,
      person_id: e.person_id ?? null,
      name: e.name ?? null,
      visitor_id: e.visitor_id ?? null,
      face_id: e.face_id ?? null,
      label: e.label,
      room_id: e.room,
      stream_id: e.stream_id,
      stream_label: e.stream_label ?? null,
      arrived_at: e.arrived_at,
      left_at: null,
      duration_s: null,
      best_score: e.score,
      quality: e.quality,
      events: [{ event: 'arrived', time: e.time, score: e.score, ...(e.face_id ? { face_id: e.face_id } : {}) }],
    };
    this.#enqueue({ run: () => this.#store.writeVisit(patch), bytes: 0, kind: 'row' });
    this.#media(e.visit_id, 'face', e.face);
    this.#media(e.visit_id, 'snapshot', e.snapshot);
  }

  #face(e: MatchEvent | UnknownEvent): void {
    const visit = this.#open.get(keyOf(e));
    // A face with no visit under way (muted, or its visit already over) is not kept.
    if (!visit) return;
    const score = e.score;
    const better = score !== null && (visit.bestScore === null || score > visit.bestScore);
    if (better) visit.bestScore = score;
    const sharper = visit.quality === null || betterFace(e.quality, visit.quality);
    if (sharper) visit.quality = e.quality;
    const reason = e.event === 'unknown' ? e.reason : undefined;
    const faceId = e.event === 'match' ? e.face_id : e.visitor_id;
    const patch: VisitPatch = {
      visit_id: visit.visitId,
      ...(better ? { best_score: score } : {}),
      ...(sharper ? { quality: e.quality } : {}),
      events: [{ event: e.event, time: e.time, score, ...(reason ? { reason } : {}), ...(faceId ? { face_id: faceId } : {}) }],
    };
    this.#enqueue({ run: () => this.#store.writeVisit(patch), bytes: 0, kind: 'row' });
    if (sharper) this.#media(visit.visitId, 'face', e.face);
  }

  #left(e: LeftEvent): void {
    for (const [key, v] of this.#open) if (v.visitId === e.visit_id) this.#open.delete(key);
    const patch: VisitPatch = {
      visit_id: e.visit_id,
      left_at: e.left_at,
      duration_s: e.duration_s,
      // A visit's label follows a rename made while it went on.
      label: e.label,
      ...(e.name !== undefined ? { name: e.name } : {}),
      events: [{ event: 'left', time: e.time, reason: e.reason }],
    };
    this.#enqueue({ run: () => this.#store.writeVisit(patch), bytes: 0, kind: 'row' });
  }

  #clip(e: ClipEvent): void {
    if (!e.visit_id) return;
    const visitId = e.visit_id;
    if (e.error || !e.path) {
      const patch: VisitPatch = { visit_id: visitId, events: [{ event: 'clip', time: e.time, reason: e.error ?? 'no_file' }] };
      this.#enqueue({ run: () => this.#store.writeVisit(patch), bytes: 0, kind: 'row' });
      return;
    }
    // Opened now, on the event path (one call): a host may remove the clip's file as soon as it holds
    // its own copy, and the open file stays readable here until the copy is in the history.
    let fd: number | undefined;
    try {
      fd = openSync(e.path, 'r');
    } catch (err) {
      this.#status.dropped++;
      this.#fail('history_write_failed', 'a clip could not be kept in the history', err);
      return;
    }
    const held = fd;
    let closed = false;
    const release = (): void => {
      if (closed) return;
      closed = true;
      try {
        closeSync(held);
      } catch {
        // Already closed: nothing is held.
      }
    };
    const mime = e.container === 'mp4' ? 'video/mp4' : 'video/webm';
    let data: Promise<Buffer> | undefined;
    const run = async (): Promise<void> => {
      data ??= new Promise<Buffer>((resolve, reject) => readFile(held, (err, bytes) => (err ? reject(err) : resolve(bytes))));
      // A failed read is not tried again; a failed store write is, with the bytes read once.
      const bytes = await data;
      release();
      await this.#store.putMedia(visitId, 'clip', bytes, mime);
    };
    this.#enqueue({ run, bytes: 0, kind: 'media', release });
  }

  #media(visitId: string, kind: MediaKind, bytes: Buffer | undefined): void {
    if (!bytes || bytes.length === 0) return;
    this.#enqueue({ run: () => this.#store.putMedia(visitId, kind, bytes, 'image/jpeg').then(() => undefined), bytes: bytes.length, kind: 'media' });
  }

  #enqueue(job: Job): void {
    if (this.#queue.length >= this.#o.maxQueue || this.#queuedBytes + job.bytes > this.#o.maxQueueBytes) {
      this.#drop(job);
      this.#fail('history_queue_full', `the history's write queue is full (${this.#queue.length} writes, ${this.#queuedBytes} bytes waiting): the store is slower than the events`);
      return;
    }
    this.#queue.push(job);
    this.#queuedBytes += job.bytes;
    this.#draining ??= this.#drain().finally(() => (this.#draining = undefined));
  }

  async #drain(): Promise<void> {
    // Not on the caller's turn: record() returns before any store call starts.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
      this.#queuedBytes -= job.bytes;
      await this.#attempt(job);
    }
  }

  async #attempt(job: Job): Promise<void> {
    let delay = this.#o.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await job.run();
        this.#status.written++;
        return;
      } catch (err) {
        // Closing: no waiting between attempts; what is left is dropped.
        if (attempt >= this.#o.attempts || this.#closed || !worthRetry(err)) {
          this.#drop(job);
          this.#fail('history_write_failed', `a history write failed ${attempt === 1 ? 'once' : `${attempt} times`} and was dropped`, err);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        delay *= 2;
      }
    }
  }

  #drop(job: Job): void {
    this.#status.dropped++;
    job.release?.();
  }

  /** Counts the failure and tells it (once per code in REPEAT_ERROR_MS). */
  #fail(code: HistoryRecorderErrorCode, what: string, cause?: unknown): void {
    const causeCode = codeOf(cause);
    this.#status.last_error = causeCode ?? code;
    const key = `${code}\u0000${causeCode ?? ''}`;
    const last = this.#reported.get(key);
    const now = performance.now();
    if (last !== undefined && now - last < REPEAT_ERROR_MS) return;
    this.#reported.set(key, now);
    const why = cause === undefined ? '' : `: ${describe(cause)}`;
    const error = new HistoryRecorderError(code, `${what}${why}`.slice(0, 600), { retryable: true });
    try {
      this.#o.onError?.(error);
    } catch {
      // The owner's listener must not stop the writes.
    }
  }
}

/** Who a face event is of, keyed as presence keys visits (a person by person, else by face, visitor, or a stranger's track). */
function keyOf(e: ArrivedEvent | MatchEvent | UnknownEvent): string {
  if (e.event !== 'unknown' && e.person_id) return `p:${e.person_id}`;
  if (e.event === 'unknown') return e.visitor_id ? `v:${e.visitor_id}` : `t:${e.stream_id}\u0000${e.track}`;
  if (e.event === 'match') return `f:${e.face_id}`;
  if (e.visitor_id) return `v:${e.visitor_id}`;
  if (e.face_id) return `f:${e.face_id}`;
  return `t:${e.stream_id}\u0000${e.track}`;
}

/** The face worth keeping: a front view over a turned one, then the larger times the sharper. */
function betterFace(now: FaceQuality, kept: FaceQuality): boolean {
  const front = (q: FaceQuality): number => (q.direction === 'front' || q.direction === null ? 1 : 0);
  if (front(now) !== front(kept)) return front(now) > front(kept);
  return now.face_px * (0.5 + now.sharpness) > kept.face_px * (0.5 + kept.sharpness);
}

/** Bad input will fail the same way again: only other failures are tried again. */
function worthRetry(err: unknown): boolean {
  return !(err instanceof ClientError && err.code === 'invalid_input');
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code.length <= 60 ? code : undefined;
}

function describe(err: unknown): string {
  if (err instanceof ClientError) return `${err.message} [${err.code}]`;
  const code = codeOf(err);
  if (err instanceof Error) return `${err.message.slice(0, 300)}${code ? ` [${code}]` : ''}`;
  return String(err).slice(0, 300);
}
