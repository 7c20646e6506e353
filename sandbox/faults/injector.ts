import type { ServerResponse } from 'node:http';
import { sendError, sendMessage } from '../http/respond';
import type { EndpointFaults, FaultConfig } from './config';
import { createPrng } from './prng';

/** Seed used when a rule gives none, so an unseeded run is still reproducible. */
const DEFAULT_SEED = 1;

interface ActiveRule {
  rule: EndpointFaults;
  next: () => number;
}

/** Decides, per request and endpoint, whether to delay it and which injected error to answer with. */
export class FaultInjector {
  #rules = new Map<string, ActiveRule>();
  readonly #sleepers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();

  /** Replaces the whole configuration; every rule restarts its random sequence from its seed. */
  configure(config: FaultConfig): void {
    this.#rules = new Map(
      Object.entries(config).map(([endpoint, rule]) => [endpoint, { rule, next: createPrng(rule.seed ?? DEFAULT_SEED) }]),
    );
  }

  /** Drops every rule and ends the injected delays still running (their requests go on unharmed). */
  clear(): void {
    this.#rules.clear();
    this.wakeAll();
  }

  /** The configuration in force (for the stats page). */
  current(): FaultConfig {
    return Object.fromEntries([...this.#rules].map(([endpoint, active]) => [endpoint, { ...active.rule }]));
  }

  /**
   * Applies latency and maybe an injected error for `endpoint`; resolves true when it answered.
   * The endpoint's own rule wins over the '*' rule; they are not combined.
   */
  async apply(endpoint: string, res: ServerResponse): Promise<boolean> {
    const active = this.#rules.get(endpoint) ?? this.#rules.get('*');
    if (!active) return false;
    const { rule } = active;
    if (rule.latencyMs) await this.#sleep(rule.latencyMs);
    if (res.destroyed) return true;
    const draw = active.next();
    let edge = rule.tooManyRequests ?? 0;
    if (draw < edge) {
      // Throttling is the one fault a client should retry; a small Retry-After tells it when.
      sendMessage(res, 429, 'Too Many Requests', { 'retry-after': '0' });
      return true;
    }
    edge += rule.limitExceeded ?? 0;
    if (draw < edge) {
      sendMessage(res, 429, 'Limit Exceeded');
      return true;
    }
    edge += rule.serverError ?? 0;
    if (draw < edge) {
      sendMessage(res, 500, 'Internal server error');
      return true;
    }
    edge += rule.timeout ?? 0;
    if (draw < edge) {
      sendMessage(res, 504, 'Endpoint request timed out');
      return true;
    }
    edge += rule.faceNotFound ?? 0;
    if (draw < edge) {
      // The body the service gives when its detector misses the face of the image sent.
      sendError(res, 400, 'face_not_found', 'No face was found in the submitted image.');
      return true;
    }
    return false;
  }

  /** Wakes every pending latency sleep, e.g. so a stopping server leaves no timers behind. */
  wakeAll(): void {
    for (const sleeper of this.#sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.wake();
    }
    this.#sleepers.clear();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.#sleepers.delete(sleeper);
          resolve();
        }, ms),
        wake: resolve,
      };
      this.#sleepers.add(sleeper);
    });
  }
}
