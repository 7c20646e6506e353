import type { ClientError } from '../errors';
import { asClientError } from './errors';
import type { ErrorSource, StatusEvent, StopReason, WatchEvent, WatchState } from './events';
import { LatencyWindow } from './latency';
import type { ResolvedWatchOptions } from './options';
import { isQuotaExhausted, QuotaPause } from './quota-pause';
import { sumCounters, type StreamCounters } from './stats';
import type { StreamWatch } from './stream-watch';
import type { Timers } from './timers';

/** The same API failure on the same stream is reported at most once in this span (it is still counted in stats). */
const REPEAT_ERROR_MS = 30_000;
/** Longest quota pause, as a multiple of the first. */
const QUOTA_PAUSE_GROWTH = 16;

/** What the reporter reads from its watcher when it speaks. */
export interface ReporterSources {
  streams(): ReadonlyMap<string, StreamWatch>;
  decoder(): string | undefined;
  /** Who is here now, for every status event. */
  present(): StatusEvent['present'];
  /** With clips: each stream's pre-roll. */
  preRoll?(): StatusEvent['pre_roll'];
  /** With a history: its counts. */
  history?(): StatusEvent['history'];
  /** With a history: every visit event as it goes out, whatever `events` lets through to the host. */
  record?(event: WatchEvent): void;
}

/**
 * What a watcher tells its host: its state and the status events that carry it with counts, the
 * face events' latency and tallies, and failures: an API fault is reported once per stream and code
 * in REPEAT_ERROR_MS, and a spent quota pauses analysis (doubling while it stays spent). Once a stop
 * is under way only what closes the watch goes out.
 */
export class WatchReporter {
  readonly #o: ResolvedWatchOptions;
  readonly #out: (event: WatchEvent) => void;
  readonly #from: ReporterSources;
  readonly #timers: Timers;
  readonly #quota: QuotaPause;
  readonly #reported = new Map<string, number>();
  readonly latency = new LatencyWindow();
  readonly #tally = { match: 0, unknown: 0 };
  #state: WatchState | 'idle' = 'idle';
  #stopping = false;

  constructor(o: ResolvedWatchOptions, out: (event: WatchEvent) => void, from: ReporterSources, timers: Timers) {
    this.#o = o;
    this.#out = out;
    this.#from = from;
    this.#timers = timers;
    this.#quota = new QuotaPause(o.quotaPauseMs, o.quotaPauseMs * QUOTA_PAUSE_GROWTH);
  }

  /** 'idle' before the first status, then the state of the last one. */
  get state(): WatchState | 'idle' {
    return this.#state;
  }

  /** The counters of every stream, summed. */
  totals(): StreamCounters {
    return sumCounters([...this.#from.streams().values()].map((s) => s.meter.counters));
  }

  /** True while a spent quota pauses analysis. */
  paused(): boolean {
    return this.#quota.paused(performance.now());
  }

  /** An API call succeeded: a later spent quota pauses from the first length again. */
  apiSucceeded(): void {
    this.#quota.succeeded();
  }

  /** From now on only the closing events go out (an analysis in flight must not start a host's workflow). */
  stopping(): void {
    this.#stopping = true;
  }

  /** Changes the state and says so. */
  setState(state: WatchState, detail?: string): void {
    this.#state = state;
    this.status(state, detail);
  }

  /** The final status: the state is `stopped`, with why (reported only for a watcher that had started). */
  stopped(reason: StopReason, error?: ClientError): void {
    const wasStarted = this.#state !== 'idle';
    this.#state = 'stopped';
    if (wasStarted) this.status('stopped', error?.message, { reason, ...(error ? { error } : {}) });
  }

  /** A status event in the current counts. */
  status(state: WatchState, detail?: string, extra: Partial<StatusEvent> = {}): void {
    const total = this.totals();
    const decoder = this.#from.decoder();
    const preRoll = this.#from.preRoll?.();
    const history = this.#from.history?.();
    this.#send({
      event: 'status',
      state,
      room: this.#o.roomId,
      counts: {
        streams: this.#from.streams().size,
        frames: total.frames.received,
        samples: total.samples.taken,
        analysed: total.samples.analysed,
        matches: this.#tally.match,
        unknowns: this.#tally.unknown,
        api_calls: total.api.detect + total.api.compare,
      },
      ...(decoder ? { decoder } : {}),
      present: this.#from.present(),
      ...(preRoll ? { pre_roll: preRoll } : {}),
      ...(history ? { history } : {}),
      ...extra,
      ...(detail ? { detail } : {}),
      time: new Date().toISOString(),
    });
  }

  /** A failure the watcher survives, or the one that ends it. */
  error(error: ClientError, source: ErrorSource, streamId?: string): void {
    const stream = streamId ? this.#from.streams().get(streamId) : undefined;
    if (stream) stream.meter.counters.events.error++;
    this.#send({ event: 'error', error, source, ...(streamId ? { stream_id: streamId } : {}), time: new Date().toISOString() });
  }

  /** An API call failed after the client's retries: a spent quota pauses; any other fault is reported, not repeated. */
  apiFailed(err: unknown, streamId: string): void {
    if (isQuotaExhausted(err)) {
      const wasPaused = this.paused();
      const ms = this.#quota.trip(performance.now());
      if (wasPaused) return;
      this.error(asClientError(err, 'quota_exceeded'), 'api', streamId);
      this.setState('paused', `quota exhausted: analysis resumes in ${Math.round(ms / 1000)} s`);
      this.#timers.later(ms, () => {
        if (this.#state === 'paused') this.setState('watching', 'quota pause over');
      });
      return;
    }
    const error = asClientError(err, 'api_failed');
    const key = `${streamId}\u0000${error.code}`;
    const last = this.#reported.get(key);
    if (last !== undefined && performance.now() - last < REPEAT_ERROR_MS) return;
    this.#reported.set(key, performance.now());
    this.error(error, 'api', streamId);
  }

  /** A face event (match, unknown, arrived): its latency and tallies, then out. */
  face(event: Extract<WatchEvent, { latency_ms: number }>): void {
    this.latency.add(event.latency_ms);
    const stream = this.#from.streams().get(event.stream_id);
    stream?.meter.latency.add(event.latency_ms);
    if (event.event === 'match' || event.event === 'unknown') {
      if (stream) stream.meter.counters.events[event.event]++;
      this.#tally[event.event]++;
    }
    this.#send(event);
  }

  /** Any other event (who left). */
  send(event: WatchEvent): void {
    this.#send(event);
  }

  /** The visits closed by a stop: they go out although a stop is under way, so no one stays here for ever. */
  closing(event: WatchEvent): void {
    this.#from.record?.(event);
    if (this.#o.events.has(event.event)) this.#out(event);
  }

  #send(event: WatchEvent): void {
    if (this.#stopping && event.event !== 'status') return;
    // The history keeps every visit, whichever events the host asked for.
    this.#from.record?.(event);
    if (!this.#o.events.has(event.event)) return;
    this.#out(event);
  }
}
