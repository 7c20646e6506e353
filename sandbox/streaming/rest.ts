import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../module';
import type { Direction, RoomStore } from './rooms';

const ROOMS = /^\/v1\/rooms\/?$/;
const ROOM = /^\/v1\/rooms\/([^/]+)\/?$/;
const TICKETS = /^\/v1\/rooms\/([^/]+)\/tickets\/?$/;

/** Writes a REST error in the `{error:{code,message}}` shape the platform uses for 404s. */
function fail(ctx: SandboxContext, res: ServerResponse, status: number, code: string, message: string): void {
  ctx.json(res, status, { error: { code, message } });
}

function notFound(ctx: SandboxContext, res: ServerResponse): void {
  fail(ctx, res, 404, 'resource_not_found', 'The specified resource does not exist.');
}

function methodNotAllowed(ctx: SandboxContext, res: ServerResponse, allowed: string): void {
  res.setHeader('Allow', allowed);
  fail(ctx, res, 405, 'method_not_allowed', `Method not allowed; use ${allowed}.`);
}

/** Serves /v1/rooms, /v1/rooms/{id} and /v1/rooms/{id}/tickets; resolves false for other paths. */
export class RoomsApi {
  readonly #ctx: SandboxContext;
  readonly #store: RoomStore;
  readonly #signalingUrl: (roomId: string) => string;
  readonly #roomLimit: () => number;

  constructor(ctx: SandboxContext, store: RoomStore, signalingUrl: (roomId: string) => string, roomLimit: () => number) {
    this.#ctx = ctx;
    this.#store = store;
    this.#signalingUrl = signalingUrl;
    this.#roomLimit = roomLimit;
  }

  /** Handles one request if its path belongs to the rooms API. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> {
    const path = url.pathname;
    let match: RegExpExecArray | null;
    if (ROOMS.test(path)) {
      await this.#guarded(req, res, 'rooms', () => this.#rooms(req, res, url));
    } else if ((match = TICKETS.exec(path))) {
      const roomId = decodeSegment(match[1]);
      await this.#guarded(req, res, 'tickets', () => (roomId === undefined ? notFound(this.#ctx, res) : this.#tickets(req, res, roomId, body)));
    } else if ((match = ROOM.exec(path))) {
      const roomId = decodeSegment(match[1]);
      await this.#guarded(req, res, 'rooms', () => (roomId === undefined ? notFound(this.#ctx, res) : this.#room(req, res, roomId)));
    } else {
      return false;
    }
    return true;
  }

  async #guarded(req: IncomingMessage, res: ServerResponse, endpoint: string, run: () => void): Promise<void> {
    if (!this.#ctx.authorize(req, res, 'streaming')) return;
    if (await this.#ctx.applyFaults(endpoint, res)) return;
    run();
  }

  #rooms(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method === 'GET') {
      const state = url.searchParams.get('state') ?? 'all';
      if (state !== 'all' && state !== 'onair') {
        fail(this.#ctx, res, 400, 'invalid_parameter', `state must be "all" or "onair", got "${state.slice(0, 40)}".`);
        return;
      }
      this.#ctx.json(res, 200, { rooms: this.#store.list(state) });
    } else if (req.method === 'POST') {
      const room = this.#store.create();
      if (!room) {
        // Not retryable until a room is deleted, so it reads like the platform's quota answer.
        fail(this.#ctx, res, 429, 'limit_exceeded', `Limit Exceeded: the room creation limit (${this.#roomLimit()}) is reached; delete a room first.`);
        return;
      }
      this.#ctx.json(res, 200, room);
    } else {
      methodNotAllowed(this.#ctx, res, 'GET, POST');
    }
  }

  #room(req: IncomingMessage, res: ServerResponse, roomId: string): void {
    if (req.method === 'GET') {
      const room = this.#store.get(roomId);
      if (room) this.#ctx.json(res, 200, room);
      else notFound(this.#ctx, res);
    } else if (req.method === 'DELETE') {
      if (!this.#store.delete(roomId)) {
        notFound(this.#ctx, res);
        return;
      }
      res.writeHead(204);
      res.end();
    } else {
      methodNotAllowed(this.#ctx, res, 'GET, DELETE');
    }
  }

  #tickets(req: IncomingMessage, res: ServerResponse, roomId: string, body: Buffer): void {
    if (req.method !== 'POST') {
      methodNotAllowed(this.#ctx, res, 'POST');
      return;
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (contentType !== 'application/json') {
      fail(this.#ctx, res, 400, 'invalid_content_type', 'Content-Type must be application/json.');
      return;
    }
    const direction = parseDirection(body);
    if (typeof direction === 'object') {
      fail(this.#ctx, res, 400, 'invalid_parameter', direction.error);
      return;
    }
    const token = this.#store.issueTicket(roomId, direction);
    if (!token) {
      notFound(this.#ctx, res);
      return;
    }
    // The spec calls the ticket's id the room identifier.
    this.#ctx.json(res, 200, { id: roomId, access_token: token, direction, url: this.#signalingUrl(roomId) });
  }
}

/** Decodes a path segment; a malformed escape (a stray '%') names no room, so it is undefined. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Reads `{direction}` from a ticket request body; an empty body means the default `down`. */
function parseDirection(body: Buffer): Direction | { error: string } {
  const text = body.toString('utf8').trim();
  if (text === '') return 'down';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: 'body must be a JSON object such as {"direction":"up"}.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { error: 'body must be a JSON object such as {"direction":"up"}.' };
  }
  const direction = (parsed as { direction?: unknown }).direction;
  if (direction === undefined) return 'down';
  if (direction === 'up' || direction === 'down') return direction;
  return { error: `direction must be "up" or "down", got ${JSON.stringify(direction)?.slice(0, 40)}.` };
}
