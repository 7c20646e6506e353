import { ApiError, InputError } from '../errors';
import { HttpCore, type HttpCoreParts, type HttpRequest } from '../http/http-core';
import { callSignal, type CallOptions } from '../util/call-options';
import { parseRoom, parseRooms, parseTicket } from './parse';
import type { Room, RoomState, Ticket, TicketDirection } from './types';

/** What the operations need from their surroundings: the address, how requests go out and how to wait. */
export interface StreamingApiParts extends HttpCoreParts {
  /** Base address of the streaming REST API (a trailing /v1 is accepted). */
  sfuUrl: string;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
}

/** The last argument of every call. */
export type StreamingCallOptions = CallOptions;

/** The one scope of the streaming service. */
const SCOPE = 'sfu.api.ricoh/v1/sfu';

const STATES: readonly RoomState[] = ['all', 'onair'];
const DIRECTIONS: readonly TicketDirection[] = ['up', 'down'];
const MAX_ID_LENGTH = 256;

/**
 * Rooms and tickets of the Live Streaming API (bearer token only, no API key), over whatever
 * transport it is given; it uses nothing but the language's own objects. StreamingClient wires it
 * to undici and a token source.
 */
export class StreamingApi {
  /** The service's base address, as given (no credentials in it). */
  readonly sfuUrl: string;
  readonly #http: HttpCore;
  #closed?: Promise<void>;

  constructor(parts: StreamingApiParts) {
    if (!parts || typeof parts !== 'object') throw new InputError('invalid_input', 'StreamingApi needs options', { field: 'options', limit: 'object' });
    this.sfuUrl = parts.sfuUrl;
    this.#http = new HttpCore({
      baseUrl: parts.sfuUrl,
      baseUrlField: 'sfuUrl',
      tokens: parts.tokens,
      transport: parts.transport,
      hostTransport: parts.hostTransport,
      sleep: parts.sleep,
      sendApiKey: false,
      retry: parts.retry,
      timeoutMs: parts.timeoutMs ?? 30_000,
      ownedTokens: parts.ownedTokens,
    });
  }

  /** Lists rooms: 'all' (default) or only those streaming now ('onair'). */
  async listRooms(state: RoomState = 'all', options: StreamingCallOptions = {}): Promise<Room[]> {
    if (!STATES.includes(state)) throw new InputError('invalid_input', `state must be 'all' or 'onair', got ${JSON.stringify(String(state)).slice(0, 40)}`, { field: 'state', limit: "'all' | 'onair'" });
    const body = await this.#request({ method: 'GET', path: '/v1/rooms', query: { state }, operation: 'listRooms' }, options);
    return parseRooms(body, 'listRooms');
  }

  /** Reads one room; 404 when it does not exist. */
  async getRoom(roomId: string, options: StreamingCallOptions = {}): Promise<Room> {
    const id = roomPath(roomId);
    const body = await this.#request({ method: 'GET', path: `/v1/rooms/${id}`, operation: 'getRoom', notFoundHint: `room "${roomId}" does not exist` }, options);
    return parseRoom(body, 'getRoom');
  }

  /**
   * Creates a room. A 429 here is the room creation limit, not throttling: it is never retried
   * (it lasts until a room is deleted). Other failures are retried only when the request surely
   * did not reach the service, so a retry cannot create a second room.
   */
  async createRoom(options: StreamingCallOptions = {}): Promise<Room> {
    try {
      const body = await this.#request(
        {
          method: 'POST',
          path: '/v1/rooms',
          operation: 'createRoom',
          idempotent: false,
          retryTooManyRequests: false,
        },
        options,
      );
      return parseRoom(body, 'createRoom');
    } catch (err) {
      throw err instanceof ApiError && err.status === 429 ? roomLimitError(err) : err;
    }
  }

  /** Deletes a room (and ends its streams); 404 when it does not exist. */
  async deleteRoom(roomId: string, options: StreamingCallOptions = {}): Promise<void> {
    const id = roomPath(roomId);
    await this.#request({ method: 'DELETE', path: `/v1/rooms/${id}`, operation: 'deleteRoom', expect: 'empty', notFoundHint: `room "${roomId}" does not exist` }, options);
  }

  /**
   * Issues a ticket: 'down' (default) to view, 'up' to broadcast. Its access_token is a secret
   * and is not enumerable (see parseTicket). Tickets are cheap and single-use: take a fresh one per join.
   */
  async createTicket(roomId: string, direction: TicketDirection = 'down', options: StreamingCallOptions = {}): Promise<Ticket> {
    const id = roomPath(roomId);
    if (!DIRECTIONS.includes(direction)) {
      throw new InputError('invalid_input', `direction must be 'up' or 'down', got ${JSON.stringify(String(direction)).slice(0, 40)}`, { field: 'direction', limit: "'up' | 'down'" });
    }
    const body = await this.#request(
      {
        method: 'POST',
        path: `/v1/rooms/${id}/tickets`,
        json: { direction },
        headers: { 'content-type': 'application/json' },
        operation: 'createTicket',
        notFoundHint: `room "${roomId}" does not exist`,
      },
      options,
    );
    return parseTicket(body, 'createTicket');
  }

  /** A `getTicket` callback for a SignalingSession: a fresh ticket of this room for every join (abortable). */
  ticketSource(roomId: string, direction: TicketDirection = 'down'): (signal?: AbortSignal) => Promise<Ticket> {
    roomPath(roomId);
    return (signal?: AbortSignal) => this.createTicket(roomId, direction, { signal });
  }

  /** Stops retries and refuses further calls. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= this.#http.close();
    return this.#closed;
  }

  #request(req: HttpRequest, options: StreamingCallOptions): Promise<unknown> {
    return this.#http.request<unknown>({ ...req, scope: SCOPE, signal: callSignal(options) });
  }
}

function roomLimitError(err: ApiError): ApiError {
  return ApiError.from({
    operation: 'createRoom',
    status: 429,
    serviceMessage: err.serviceMessage,
    // A code the service did not name is only the status: name the limit instead.
    code: err.code === 'http_429' ? 'room_limit' : err.code,
    retryable: false,
    message: `createRoom failed: HTTP 429: the room creation limit is reached (${err.serviceMessage}); delete a room before creating another, retrying will not help`,
  });
}

function roomPath(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InputError('invalid_input', 'roomId is required (non-empty string)', { field: 'roomId', limit: 'non-empty string' });
  if (value.length > MAX_ID_LENGTH) throw new InputError('invalid_input', `roomId is longer than ${MAX_ID_LENGTH} characters`, { field: 'roomId', limit: `${MAX_ID_LENGTH} characters` });
  if (/[/\\]/.test(value) || value === '.' || value === '..' || [...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    throw new InputError('invalid_input', 'roomId must be a single path segment without control characters', { field: 'roomId', limit: 'a single path segment' });
  }
  return encodeURIComponent(value);
}
