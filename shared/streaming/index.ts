export { StreamingClient, type StreamingClientOptions, type StreamingCredentialsOptions, type StreamingTokenSourceOptions } from './client';
export type { Room, RoomState, Ticket, TicketDirection } from './types';
export { parseTicket } from './parse';
