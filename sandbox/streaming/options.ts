/** Tunables of the streaming sandbox; every timeout and limit of the signaling lives here. */
export interface StreamingSandboxOptions {
  /** Rooms one client may hold at once; POST /v1/rooms answers 429 beyond it. */
  roomLimit: number;
  /** Delay before up_count/down_count (and the onair filter) follow live connections, in ms. */
  countDelayMs: number;
  /** How long a ticket token stays valid after it was issued, in seconds. */
  ticketLifetimeSeconds: number;
  /** Time allowed between the WebSocket opening and the connect message, in ms. */
  connectWaitTimeoutMs: number;
  /** Time allowed between the offer and the client's answer, in ms. */
  answerWaitTimeoutMs: number;
  /** Interval between two server pings, in ms (Sora: 5 s). */
  pingIntervalMs: number;
  /** Silence after which a session without pong closes with PONG-TIMEOUT-ERROR, in ms (Sora: 60 s). */
  pongTimeoutMs: number;
  /** Live signaling sessions per channel (room), upstream and downstream together. */
  maxConnectionsPerChannel: number;
  /** Live signaling sessions on the whole server. */
  maxConnections: number;
  /** A connect whose video.bit_rate (kbps) is at or above this is refused. */
  bitRateLimitKbps: number;
  /** Time allowed for the server's ICE gathering before the offer goes out anyway, in ms. */
  iceGatheringTimeoutMs: number;
}

/** The documented defaults (see README.md). */
export const defaultStreamingOptions: Readonly<StreamingSandboxOptions> = Object.freeze({
  roomLimit: 10,
  countDelayMs: 1000,
  ticketLifetimeSeconds: 3600,
  connectWaitTimeoutMs: 10_000,
  answerWaitTimeoutMs: 10_000,
  pingIntervalMs: 5_000,
  pongTimeoutMs: 60_000,
  maxConnectionsPerChannel: 10,
  maxConnections: 100,
  bitRateLimitKbps: 5_000,
  iceGatheringTimeoutMs: 5_000,
});

/** Fills in defaults and rejects values that would make the sandbox misbehave. */
export function resolveStreamingOptions(partial: Partial<StreamingSandboxOptions> = {}): StreamingSandboxOptions {
  const merged: StreamingSandboxOptions = { ...defaultStreamingOptions };
  for (const key of Object.keys(defaultStreamingOptions) as (keyof StreamingSandboxOptions)[]) {
    const value = partial[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`streaming option ${key} must be a finite number >= 0, got ${String(value)}`);
    }
    merged[key] = value;
  }
  return merged;
}
