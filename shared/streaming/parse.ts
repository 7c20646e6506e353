import { ApiError } from '../errors';
import type { Room, Ticket, TicketDirection } from './types';

function invalid(operation: string, what: string): ApiError {
  return ApiError.from({
    operation,
    status: 200,
    serviceMessage: `unexpected response: ${what}`,
    code: 'invalid_response',
    retryable: false,
  });
}

/** Checks one room object of a response. */
export function parseRoom(body: unknown, operation: string): Room {
  const r = body as Partial<Room> | null;
  if (!r || typeof r !== 'object' || typeof r.id !== 'string') throw invalid(operation, 'room without an id');
  return {
    id: r.id,
    up_count: typeof r.up_count === 'number' ? r.up_count : 0,
    down_count: typeof r.down_count === 'number' ? r.down_count : 0,
    created_at: typeof r.created_at === 'string' ? r.created_at : '',
  };
}

/** Checks the `{rooms: [...]}` list response. */
export function parseRooms(body: unknown, operation: string): Room[] {
  const rooms = (body as { rooms?: unknown } | null)?.rooms;
  if (!Array.isArray(rooms)) throw invalid(operation, 'no rooms array');
  return rooms.map((r) => parseRoom(r, operation));
}

/**
 * Checks a ticket response. The token is kept as a non-enumerable property: the session can read
 * it, but JSON.stringify, util.inspect, logs and host outputs of the ticket do not show it.
 */
export function parseTicket(body: unknown, operation: string): Ticket {
  const t = body as Partial<Ticket> | null;
  if (!t || typeof t !== 'object') throw invalid(operation, 'not an object');
  if (typeof t.id !== 'string') throw invalid(operation, 'ticket without an id');
  if (typeof t.access_token !== 'string' || t.access_token === '') throw invalid(operation, 'ticket without an access_token');
  if (typeof t.url !== 'string' || !/^wss?:\/\//i.test(t.url)) throw invalid(operation, 'ticket url is not a ws:// or wss:// address');
  const direction: TicketDirection = t.direction === 'up' ? 'up' : 'down';
  const ticket = { id: t.id, direction, url: t.url } as Ticket;
  Object.defineProperty(ticket, 'access_token', { value: t.access_token, enumerable: false, writable: false });
  return ticket;
}
