import type { RTCPeerConnection } from 'werift';

/**
 * Everything received on the selected candidate pairs: media and DTLS packets, and the STUN
 * requests and responses of ICE consent checks (RFC 7675). A live peer answers our consent checks
 * and sends its own every few seconds, even when no media flows.
 */
export function inboundOnSelectedPairs(pc: RTCPeerConnection): number {
  let n = 0;
  for (const t of pc.iceTransports) {
    const pair = t.connection.nominated;
    if (pair) n += pair.packetsReceived + pair.requestsReceived + pair.responsesReceived;
  }
  return n;
}

/**
 * Reports a media connection as silent when nothing at all arrived on it for `silenceMs`, and as
 * live again when something does. werift only reports a vanished peer once consent expires (30 s)
 * and never says 'disconnected'; browsers call a connection disconnected after a few seconds
 * without any packet, which is what this watch provides.
 */
export class SilenceWatch {
  #timer?: NodeJS.Timeout;
  #last = -1;
  #lastChange = 0;
  #silent = false;
  readonly #read: () => number;
  readonly #silenceMs: number;
  readonly #onChange: (silent: boolean) => void;

  constructor(read: () => number, silenceMs: number, onChange: (silent: boolean) => void) {
    this.#read = read;
    this.#silenceMs = silenceMs;
    this.#onChange = onChange;
  }

  /** Starts polling the counter (a few times per silence period). */
  start(): void {
    if (this.#timer) return;
    this.#lastChange = Date.now();
    this.#timer = setInterval(() => this.#check(), Math.max(50, Math.min(1000, this.#silenceMs / 4)));
  }

  /** Stops polling; idempotent. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    let n: number;
    try {
      n = this.#read();
    } catch {
      return;
    }
    const now = Date.now();
    if (n !== this.#last) {
      this.#last = n;
      this.#lastChange = now;
      if (this.#silent) {
        this.#silent = false;
        this.#onChange(false);
      }
    } else if (!this.#silent && now - this.#lastChange >= this.#silenceMs) {
      this.#silent = true;
      this.#onChange(true);
    }
  }
}
