import { STREAMING_SCOPES } from '../auth/scopes';
import { clientTokens, type CallerTokenSource, type ClientCredentials } from '../auth/client-tokens';
import type { TokenSource } from '../auth/token-source';
import { ApiError, InputError } from '../errors';
import { HttpClient } from '../http/http-client';
import type { RetryPolicy } from '../http/retry';
import { parseRoom, parseRooms, parseTicket } from './parse';
import type { Room, RoomState, Ticket, TicketDirection } from './types';

interface StreamingCommonOptions {
  /** Base address of the streaming REST API, e.g. https://sfu.api.ricoh (a trailing /v1 is accepted). */
  sfuUrl: string;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
}

/** Builds its own token source (streaming scope) from client credentials. */
export interface StreamingCredentialsOptions extends StreamingCommonOptions, ClientCredentials {}

/** Uses a token source owned by the caller; it must have been made with STREAMING_SCOPES. */
export interface StreamingTokenSourceOptions extends StreamingCommonOptions, CallerTokenSource {}

/** Either credentials or an existing token source. */
export type StreamingClientOptions = StreamingCredentialsOptions | StreamingTokenSourceOptions;

const STATES: readonly RoomState[] = ['all', 'onair'];
const DIRECTIONS: readonly TicketDirection[] = ['up', 'down'];
const MAX_ID_LENGTH = 256;

/** Rooms and tickets of the Live Streaming API (bearer token only, no API key). */
export class StreamingClient {
  readonly #http: HttpClient;
  readonly #tokens: TokenSource;
  readonly #ownsTokens: boolean;
  #closed?: Promise<void>;

  constructor(options: StreamingClientOptions) {
    if (!options || typeof options !== 'object') throw new InputError('options', 'StreamingClient needs options', 'object');
    const { tokens, owned } = clientTokens(options, STREAMING_SCOPES);
    this.#tokens = tokens;
    this.#ownsTokens = owned;
    try {
      this.#http = new HttpClient({
        baseUrl: options.sfuUrl,
        baseUrlField: 'sfuUrl',
        tokens,
        sendApiKey: false,
        retry: options.retry,
        timeoutMs: options.timeoutMs ?? 30_000,
      });
    } catch (err) {
      if (owned) void tokens.close();
      throw err;
    }
  }

  /** Lists rooms: 'all' (default) or only those streaming now ('onair'). */
  async listRooms(state: RoomState = 'all'): Promise<Room[]> {
    if (!STATES.includes(state)) throw new InputError('state', `state must be 'all' or 'onair', got ${JSON.stringify(String(state)).slice(0, 40)}`, "'all' | 'onair'");
    const body = await this.#http.request<unknown>({ method: 'GET', path: '/v1/rooms', query: { state }, operation: 'listRooms' });
    return parseRooms(body, 'listRooms');
  }

  /** Reads one room; 404 when it does not exist. */
  async getRoom(roomId: string): Promise<Room> {
    const id = roomPath(roomId);
    const body = await this.#http.request<unknown>({ method: 'GET', path: `/v1/rooms/${id}`, operation: 'getRoom', notFoundHint: `room "${roomId}" does not exist` });
    return parseRoom(body, 'getRoom');
  }

  /**
   * Creates a room. A 429 here is the room creation limit, not throttling: it is never retried
   * (it lasts until a room is deleted). Other failures are retried only when the request surely
   * did not reach the service, so a retry cannot create a second room.
   */
  async createRoom(): Promise<Room> {
    try {
      const body = await this.#http.request<unknown>({
        method: 'POST',
        path: '/v1/rooms',
        operation: 'createRoom',
        idempotent: false,
        retryTooManyRequests: false,
      });
      return parseRoom(body, 'createRoom');
    } catch (err) {
      throw err instanceof ApiError && err.status === 429 ? roomLimitError(err) : err;
    }
  }

  /** Deletes a room (and ends its streams); 404 when it does not exist. */
  async deleteRoom(roomId: string): Promise<void> {
    const id = roomPath(roomId);
    await this.#http.request<void>({ method: 'DELETE', path: `/v1/rooms/${id}`, operation: 'deleteRoom', expect: 'empty', notFoundHint: `room "${roomId}" does not exist` });
  }

  /**
   * Issues a ticket: 'down' (default) to view, 'up' to broadcast. Its access_token is a secret
   * and is not enumerable (see parseTicket). Tickets are cheap and single-use: take a fresh one per join.
   */
  async createTicket(roomId: string, direction: TicketDirection = 'down'): Promise<Ticket> {
    const id = roomPath(roomId);
    if (!DIRECTIONS.includes(direction)) {
      throw new InputError('direction', `direction must be 'up' or 'down', got ${JSON.stringify(String(direction)).slice(0, 40)}`, "'up' | 'down'");
    }
    const body = await this.#http.request<unknown>({
      method: 'POST',
      path: `/v1/rooms/${id}/tickets`,
      json: { direction },
      headers: { 'content-type': 'application/json' },
      operation: 'createTicket',
      notFoundHint: `room "${roomId}" does not exist`,
    });
    return parseTicket(body, 'createTicket');
  }

  /** A `getTicket` callback for a SignalingSession: a fresh ticket of this room for every join. */
  ticketSource(roomId: string, direction: TicketDirection = 'down'): () => Promise<Ticket> {
    roomPath(roomId);
    return () => this.createTicket(roomId, direction);
  }

  /** Releases connection pools (and the token source when this client made it). Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.#http.close();
      if (this.#ownsTokens) await this.#tokens.close();
    })();
    return this.#closed;
  }
}

function roomLimitError(err: ApiError): ApiError {
  return new ApiError({
    operation: 'createRoom',
    status: 429,
    serviceMessage: err.serviceMessage,
    code: err.code ?? 'room_limit',
    retryable: false,
    message: `createRoom failed: HTTP 429: the room creation limit is reached (${err.serviceMessage}); delete a room before creating another, retrying will not help`,
  });
}

function roomPath(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InputError('roomId', 'roomId is required (non-empty string)', 'non-empty string');
  if (value.length > MAX_ID_LENGTH) throw new InputError('roomId', `roomId is longer than ${MAX_ID_LENGTH} characters`, `${MAX_ID_LENGTH} characters`);
  if (/[/\\]/.test(value) || value === '.' || value === '..' || [...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    throw new InputError('roomId', 'roomId must be a single path segment without control characters', 'a single path segment');
  }
  return encodeURIComponent(value);
}
