import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { SignalingSession, type SessionOptions } from '../../../shared/signaling';
import type { Ticket } from '../../../shared/streaming';

/** What the fake signaling server does with a client's connect message. */
export type ConnectReply = (ws: WebSocket, connect: Record<string, unknown>) => void;

/**
 * A WebSocket server on 127.0.0.1 that records every message and answers connect the way a test
 * tells it to: for reasons and situations the sandbox does not produce on its own.
 */
export class FakeSignaling {
  readonly messages: Record<string, unknown>[] = [];
  readonly #wss: WebSocketServer;
  readonly #sockets = new Set<WebSocket>();

  readonly #reply: ConnectReply;

  private constructor(wss: WebSocketServer, reply: ConnectReply) {
    this.#reply = reply;
    this.#wss = wss;
    wss.on('connection', (ws) => {
      this.#sockets.add(ws);
      ws.on('close', () => this.#sockets.delete(ws));
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as Record<string, unknown>;
        this.messages.push(msg);
        if (msg.type === 'connect') this.#reply(ws, msg);
      });
    });
  }

  /** Starts listening on an ephemeral loopback port. */
  static async start(reply: ConnectReply): Promise<FakeSignaling> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    return new FakeSignaling(wss, reply);
  }

  /** A getTicket for a viewer of this server: a down ticket of a made-up room, fresh per join. */
  downTicket(): () => Promise<Ticket> {
    return async () => ({ id: 'fake-room', direction: 'down', url: this.url, access_token: 't' });
  }

  /** A loopback viewer of this server that does not rejoin, so a test sees each attempt's end. */
  viewer(extra: Partial<SessionOptions> = {}): SignalingSession {
    return new SignalingSession({ role: 'downstream', getTicket: this.downTicket(), loopbackOnly: true, rejoin: false, ...extra });
  }

  /** ws:// address of the server. */
  get url(): string {
    return `ws://127.0.0.1:${(this.#wss.address() as AddressInfo).port}/servers/fake-room`;
  }

  /** Closes every socket and the server. */
  async stop(): Promise<void> {
    for (const ws of this.#sockets) ws.terminate();
    await new Promise<void>((r) => this.#wss.close(() => r()));
  }
}
