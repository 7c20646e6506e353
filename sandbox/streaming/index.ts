import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { SandboxContext, SandboxModule } from '../module';
import { RESTART_CLOSE } from './close-reasons';
import type { ConnectRequest } from './connect-message';
import type { MediaPeer } from './media-peer';
import { resolveStreamingOptions, type StreamingSandboxOptions } from './options';
import { RoomsApi } from './rest';
import { RoomStore } from './rooms';
import { Sfu } from './sfu';
import { SignalingSession, type SessionHost } from './signaling';

export type { StreamingSandboxOptions } from './options';
export { defaultStreamingOptions } from './options';

const SIGNALING_PATH = /^\/servers\/([^/]+)\/?$/;

/** The Live Streaming side of the sandbox: rooms and tickets REST, signaling WebSocket, werift SFU. */
class StreamingModule implements SandboxModule, SessionHost {
  readonly options: StreamingSandboxOptions;
  readonly store: RoomStore;
  readonly faults = { stopPings: false, ignorePongs: false };
  readonly #sessions = new Set<SignalingSession>();
  /** Peer connections still tearing down; reset() and close() wait for them. */
  readonly #releasing = new Set<Promise<void>>();
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  readonly #sfu: Sfu;
  readonly #api: RoomsApi;

  readonly #ctx: SandboxContext;

  constructor(ctx: SandboxContext, options: Partial<StreamingSandboxOptions>) {
    this.#ctx = ctx;
    this.options = resolveStreamingOptions(options);
    this.store = new RoomStore(this.options);
    this.#sfu = new Sfu(this.options.iceGatheringTimeoutMs);
    this.#api = new RoomsApi(ctx, this.store, (roomId) => this.#signalingUrl(roomId), () => this.options.roomLimit);
    this.store.onDeleted((roomId) => {
      for (const session of [...this.#sessions]) if (session.roomId === roomId) session.close();
    });
  }

  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> {
    return this.#api.handle(req, res, url, body);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    if (!SIGNALING_PATH.test(path)) return false;
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#sessions.add(new SignalingSession(ws, this));
    });
    return true;
  }

  async admin(action: string, body: unknown): Promise<unknown> {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    switch (action) {
      case 'drop-sockets': {
        let victims = [...this.#sessions];
        if (typeof input.room === 'string') victims = victims.filter((s) => s.roomId === input.room);
        if (typeof input.count === 'number') victims = victims.slice(0, Math.max(0, Math.floor(input.count)));
        for (const session of victims) session.drop();
        return { dropped: victims.length };
      }
      case 'restart-sfu': {
        const sessions = [...this.#sessions];
        for (const session of sessions) session.close(undefined, RESTART_CLOSE);
        return { closed: sessions.length };
      }
      case 'stop-pings':
        this.faults.stopPings = input.enabled !== false;
        return { stopPings: this.faults.stopPings };
      case 'ignore-pongs':
        this.faults.ignorePongs = input.enabled !== false;
        return { ignorePongs: this.faults.ignorePongs };
      case 'sessions':
        return {
          sessions: [...this.#sessions].map((s) => ({ client_id: s.clientId, room: s.roomId ?? null, role: s.role ?? null, state: s.state, pongs: s.pongs, early_dtls_packets: s.earlyDtlsPackets })),
        };
      default:
        return undefined;
    }
  }

  async reset(): Promise<void> {
    this.#closeSessions();
    await Promise.all([...this.#releasing]);
    this.store.clear();
    this.faults.stopPings = false;
    this.faults.ignorePongs = false;
  }

  async close(): Promise<void> {
    await this.reset();
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  countAdmitted(roomId?: string): number {
    let count = 0;
    for (const session of this.#sessions) if (session.admitted && (roomId === undefined || session.roomId === roomId)) count++;
    return count;
  }

  createPeer(roomId: string, request: ConnectRequest, clientId: string): MediaPeer {
    return this.#sfu.createPeer(roomId, request, clientId);
  }

  forget(session: SignalingSession, released: Promise<void>): void {
    this.#sessions.delete(session);
    const settled = released.catch(() => undefined).finally(() => this.#releasing.delete(settled));
    this.#releasing.add(settled);
  }

  #closeSessions(): void {
    // Terminated rather than closed: a reset must not wait for clients to answer a close frame.
    for (const session of [...this.#sessions]) session.drop();
  }

  #signalingUrl(roomId: string): string {
    const base = new URL(this.#ctx.baseUrl);
    base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    base.pathname = `/servers/${encodeURIComponent(roomId)}`;
    return base.toString();
  }
}

/** Creates the streaming module for the sandbox server. */
export function createStreamingModule(ctx: SandboxContext, options: Partial<StreamingSandboxOptions> = {}): SandboxModule {
  return new StreamingModule(ctx, options);
}
