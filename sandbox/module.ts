import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Which service a bearer token must have been issued for. */
export type TokenScope = 'vision' | 'streaming';

/** What the sandbox server lends to each of its service modules. */
export interface SandboxContext {
  /** Base HTTP address of the running server, e.g. http://127.0.0.1:8787 (no trailing slash). */
  readonly baseUrl: string;
  /**
   * Checks the bearer token (and, for vision, the x-api-key header) the way the real service does.
   * Writes the 401/403 response itself and returns false when the request must stop here.
   */
  authorize(req: IncomingMessage, res: ServerResponse, scope: TokenScope): boolean;
  /**
   * Applies the injected faults configured for `endpoint` (latency, error rates).
   * Returns true when it has written a fault response and the module must not answer.
   */
  applyFaults(endpoint: string, res: ServerResponse): Promise<boolean>;
  /** Writes a JSON response with the given status. */
  json(res: ServerResponse, status: number, body: unknown): void;
}

/** A service the sandbox speaks (vision, streaming), mounted on the one shared HTTP server. */
export interface SandboxModule {
  /** Handles a request; resolves false when the path is not this module's. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean>;
  /** Takes a WebSocket upgrade; returns false when the path is not this module's. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Handles POST /_sandbox/<module name>/<action>; resolves undefined when the action is unknown. */
  admin?(action: string, body: unknown): Promise<unknown>;
  /** Forgets all state (rooms, collections, connections). */
  reset(): Promise<void>;
  /** Releases everything the module opened. */
  close(): Promise<void>;
}
