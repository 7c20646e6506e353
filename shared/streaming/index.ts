/**
 * Entry point `<package>/streaming`: the rooms and tickets client, its types, errors and tokens.
 * The signaling session and the publisher (which load werift) come from the package root.
 */
export * from '../common';
export {
  StreamingClient,
  type StreamingClientOptions,
  type StreamingCallOptions,
} from './client';
export { StreamingApi, type StreamingApiParts } from './streaming-api';
export type { Room, RoomState, Ticket, TicketDirection } from './types';
