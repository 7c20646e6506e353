import type { FrameDecoder } from '../decode';
import type { EncodedFrame } from '../frames/types';
import { analyseSample, epochOf, type AnalysisContext, type Sample, type StreamState } from './analyse';
import { ChangeGate } from './change-gate';
import { DecodeQueue } from './decode-queue';
import { LatestWins } from './latest-wins';
import { FrameSampler } from './sampler';
import { StreamMeter } from './stats';
import { Tracker } from './tracker';

/** What a stream's pipeline needs from its watcher besides the analysis context. */
export interface StreamHooks {
  createDecoder(): Promise<FrameDecoder>;
  requestKeyframe(): void;
  /** The decoder failed (reported at most once per stream until it decodes again). */
  decoderFailed(err: unknown): void;
  /** A sample's analysis threw (not an API failure: those are reported by the analysis). */
  analysisFailed(err: unknown): void;
}

/**
 * One stream of the room, on its own: frame -> decode (every frame) -> sample (latest wins) ->
 * analysis. Its gate, tracks and counters are its own; the budget and the quota pause are shared.
 */
export class StreamWatch {
  readonly state: StreamState;
  readonly #sampler: FrameSampler;
  readonly #queue: DecodeQueue;
  readonly #slot: LatestWins<Sample>;
  #failureReported = false;

  constructor(streamId: string, ctx: AnalysisContext, hooks: StreamHooks) {
    this.state = {
      streamId,
      gate: new ChangeGate(ctx.o.changeThreshold),
      tracker: new Tracker({ recheckMs: ctx.o.recheckMs }),
      meter: new StreamMeter(),
      dirty: false,
    };
    const m = this.state.meter.counters;
    this.#sampler = new FrameSampler(ctx.o.fps);
    // A sample's picture goes back to its decoder once analysed or dropped: nothing keeps it.
    this.#slot = new LatestWins<Sample>(
      (sample) =>
        analyseSample(sample, this.state, ctx)
          .catch((err: unknown) => hooks.analysisFailed(err))
          .finally(() => {
            this.#queue.release(sample.picture);
            ctx.analysed?.(streamId, epochOf(sample.arrival));
          }),
      (sample) => {
        m.samples.skippedBusy++;
        this.#queue.release(sample.picture);
      },
    );
    this.#queue = new DecodeQueue(hooks.createDecoder, {
      picture: (picture, arrival) => {
        m.samples.taken++;
        this.#slot.offer({ picture, arrival, decodedAt: performance.now() });
      },
      decoded: () => {
        m.frames.decoded++;
        this.#failureReported = false;
      },
      dropped: (n) => (m.frames.dropped += n),
      needKeyframe: () => hooks.requestKeyframe(),
      failed: (err) => {
        if (this.#failureReported) return;
        this.#failureReported = true;
        hooks.decoderFailed(err);
      },
    });
  }

  /** Counters and latency of this stream. */
  get meter(): StreamMeter {
    return this.state.meter;
  }

  /** Takes one encoded frame of this stream. */
  push(frame: EncodedFrame): void {
    const arrival = performance.now();
    this.state.meter.counters.frames.received++;
    this.#queue.push(frame, this.#sampler.due(frame.timestamp), arrival);
  }

  /** The stream starts over (a rejoin): new decoder at the next key frame; tracks and cooldowns stay. */
  restart(): void {
    this.#queue.restart();
    this.#sampler.reset();
  }

  /** Stops decoding and analysis; resolves when the decoder is closed and the running analysis is over. */
  async close(): Promise<void> {
    await Promise.all([this.#queue.close(), this.#slot.close()]);
  }
}
