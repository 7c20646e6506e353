/** A room of the live streaming service. */
export interface Room {
  id: string;
  /** Uploading streams; the service updates it with a short delay. */
  up_count: number;
  /** Downloading streams; the service updates it with a short delay. */
  down_count: number;
  /** Creation time, ISO 8601 UTC. */
  created_at: string;
}

/** Ticket direction: 'up' to broadcast, 'down' to view. */
export type TicketDirection = 'up' | 'down';

/** A ticket to join a room over signaling. `access_token` is a secret: never log it. */
export interface Ticket {
  /** Room id. */
  id: string;
  access_token: string;
  direction: TicketDirection;
  /** Signaling WebSocket address. */
  url: string;
}

/** Filter of GET /v1/rooms. */
export type RoomState = 'all' | 'onair';
