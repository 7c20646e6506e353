import WebSocket from 'ws';

/** How a signaling WebSocket ended. */
export interface Closed {
  code: number;
  reason: string;
}

/** A raw signaling socket that records every message and the close event. */
export class RawSignaling {
  /** Every message received, in order. */
  readonly messages: Record<string, unknown>[] = [];
  /** Received messages that next() has not handed out yet. */
  readonly #unread: Record<string, unknown>[] = [];
  readonly closed: Promise<Closed>;
  readonly #waiters: { type: string; resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void }[] = [];
  #closeInfo?: Closed;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.#closeInfo = { code, reason: reason.toString('utf8') };
        for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error(`socket closed (${code} ${this.#closeInfo.reason}) before ${waiter.type}`));
        resolve(this.#closeInfo);
      });
    });
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      this.messages.push(message);
      const index = this.#waiters.findIndex((w) => w.type === message.type);
      // A message goes to a waiter or into the unread queue, never both: next() hands each one out once.
      if (index >= 0) this.#waiters.splice(index, 1)[0].resolve(message);
      else this.#unread.push(message);
    });
  }

  /** Opens a socket to the signaling address and waits until it is open. */
  static open(url: string): Promise<RawSignaling> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const client = new RawSignaling(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  /** Sends a JSON message (or a raw string as is). */
  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Resolves with the next message of this type (or one already received and not yet taken). */
  next(type: string): Promise<Record<string, unknown>> {
    const seen = this.#unread.findIndex((m) => m.type === type);
    if (seen >= 0) return Promise.resolve(this.#unread.splice(seen, 1)[0]);
    if (this.#closeInfo) return Promise.reject(new Error(`socket already closed (${this.#closeInfo.code} ${this.#closeInfo.reason})`));
    return new Promise((resolve, reject) => this.#waiters.push({ type, resolve, reject }));
  }

  /** Closes the socket from the client side and waits for the close event. */
  async close(): Promise<Closed> {
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    return this.closed;
  }

  /** Terminates the socket without a handshake (cleanup in tests). */
  terminate(): void {
    this.ws.terminate();
  }
}

/** The connect message for a ticket, with fields overridable by the test. */
export function connectMessage(ticket: { id: string; access_token: string; direction: string }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'connect',
    role: ticket.direction === 'up' ? 'upstream' : 'downstream',
    channel_id: ticket.id,
    metadata: { access_token: ticket.access_token },
    video: { codec_type: 'VP8' },
    audio: false,
    ...extra,
  };
}
