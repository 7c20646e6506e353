import type { PreRollStats } from '../clips/pre-roll';
import type { WeriftSpeedupsStatus } from '../signaling/werift-speedups';
import { LatencyWindow } from './latency';

/** Counters of one stream (or of all streams together). */
export interface StreamCounters {
  frames: { received: number; decoded: number; dropped: number };
  samples: { taken: number; skippedBusy: number; skippedGate: number; skippedBudget: number; skippedPaused: number; analysed: number };
  faces: {
    seen: number;
    /** Tracks started: each new face in view. */
    tracks: number;
    /** Tracks that got their first verdict (a match, an unknown, or not comparable). */
    decided: number;
    compared: number;
    skippedSmall: number;
    skippedBudget: number;
    /** Compares whose first crop the service found no face in (one a face and sample). */
    notFoundByCompare: number;
    /** Extra compare calls made for them (other crops, the whole frame). */
    retried: number;
    /** Of those, the ones another crop or the whole frame could compare. */
    recovered: number;
    /** Of those, the ones whose retry missed too (the face is tried again in the next sample). */
    missedAll: number;
    /** Faces no crop and no retry could compare: each ends in an `unknown` with reason `not_comparable`. */
    notComparable: number;
  };
  api: { detect: number; compare: number; enrol: number; failed: number };
  /** Events sent, and `muted`: matches of ignored people that were not sent. */
  events: { match: number; unknown: number; arrived: number; muted: number; error: number };
}

/** Counters plus latency (frame arrival to event) percentiles. */
export interface StreamStats extends StreamCounters {
  latencyMs: { p50?: number; p95?: number; count: number };
}

/** What `watcher.stats` gives. */
export interface WatchStats extends StreamStats {
  state: string;
  /** The installed werift and whether the package's speed-ups run on it. */
  werift: WeriftSpeedupsStatus;
  decoder?: string;
  /** Per stream id. */
  streams: Record<string, StreamStats & { codec?: string; decoder?: string }>;
  /** With clips: each stream's pre-roll (what it holds, its bytes bound, frames dropped by that bound). */
  pre_roll?: Record<string, PreRollStats>;
}

/** Fresh zeroed counters. */
export function zeroCounters(): StreamCounters {
  return {
    frames: { received: 0, decoded: 0, dropped: 0 },
    samples: { taken: 0, skippedBusy: 0, skippedGate: 0, skippedBudget: 0, skippedPaused: 0, analysed: 0 },
    faces: { seen: 0, tracks: 0, decided: 0, compared: 0, skippedSmall: 0, skippedBudget: 0, notFoundByCompare: 0, retried: 0, recovered: 0, missedAll: 0, notComparable: 0 },
    api: { detect: 0, compare: 0, enrol: 0, failed: 0 },
    events: { match: 0, unknown: 0, arrived: 0, muted: 0, error: 0 },
  };
}

/** Counters and latencies of one stream. */
export class StreamMeter {
  readonly counters = zeroCounters();
  readonly latency = new LatencyWindow();

  /** A snapshot safe to hand out. */
  snapshot(): StreamStats {
    return { ...structuredClone(this.counters), latencyMs: this.latency.summary() };
  }
}

/** Sums the counters of several streams (latency from all their windows is given by the caller). */
export function sumCounters(all: readonly StreamCounters[]): StreamCounters {
  const total = zeroCounters();
  for (const c of all) {
    for (const group of Object.keys(total) as (keyof StreamCounters)[]) {
      const t = total[group] as Record<string, number>;
      const s = c[group] as Record<string, number>;
      for (const k of Object.keys(t)) t[k] += s[k];
    }
  }
  return total;
}
