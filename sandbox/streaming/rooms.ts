import { randomBytes, randomUUID } from 'node:crypto';

/** Which way a ticket lets media flow: `up` publishes, `down` views. */
export type Direction = 'up' | 'down';

/** A room as the REST API shows it. */
export interface RoomView {
  id: string;
  up_count: number;
  down_count: number;
  created_at: string;
}

interface Room {
  id: string;
  createdAt: Date;
  live: { up: number; down: number };
  shown: { up: number; down: number };
}

interface Ticket {
  roomId: string;
  direction: Direction;
  expiresAt: number;
}

/** Why a ticket token was refused; all of them surface as RAPI-INVALID-TOKEN. */
export type TicketRejection = 'unknown' | 'expired' | 'wrong-room' | 'wrong-direction';

/**
 * Rooms, their tickets and their published connection counts.
 * Counts are shown with a delay, as the real service updates them "with a short delay".
 */
export class RoomStore {
  readonly #rooms = new Map<string, Room>();
  readonly #tickets = new Map<string, Ticket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #deletedListeners: ((roomId: string) => void)[] = [];

  readonly #limits: { roomLimit: number; countDelayMs: number; ticketLifetimeSeconds: number };
  readonly #now: () => number;

  constructor(limits: { roomLimit: number; countDelayMs: number; ticketLifetimeSeconds: number }, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Creates a room, or returns undefined when the creation limit is reached. */
  create(): RoomView | undefined {
    if (this.#rooms.size >= this.#limits.roomLimit) return undefined;
    const room: Room = { id: randomUUID(), createdAt: new Date(this.#now()), live: { up: 0, down: 0 }, shown: { up: 0, down: 0 } };
    this.#rooms.set(room.id, room);
    return view(room);
  }

  /** The room with this id, as shown by the REST API. */
  get(id: string): RoomView | undefined {
    const room = this.#rooms.get(id);
    return room && view(room);
  }

  /** True when the room exists. */
  has(id: string): boolean {
    return this.#rooms.has(id);
  }

  /** Every room, or only those with an upstream connected (as last published). */
  list(state: 'all' | 'onair'): RoomView[] {
    const rooms = [...this.#rooms.values()];
    return (state === 'onair' ? rooms.filter((r) => r.shown.up > 0) : rooms).map(view);
  }

  /** Removes a room and its tickets; returns false when it did not exist. */
  delete(id: string): boolean {
    if (!this.#rooms.delete(id)) return false;
    for (const [token, ticket] of this.#tickets) if (ticket.roomId === id) this.#tickets.delete(token);
    for (const listener of this.#deletedListeners) listener(id);
    return true;
  }

  /** Registers a callback run when a room is deleted (signaling closes its sessions). */
  onDeleted(listener: (roomId: string) => void): void {
    this.#deletedListeners.push(listener);
  }

  /** Issues a ticket token for a room; undefined when the room does not exist. */
  issueTicket(roomId: string, direction: Direction): string | undefined {
    if (!this.#rooms.has(roomId)) return undefined;
    this.#dropExpiredTickets();
    // The token is opaque to clients; 32 random bytes make it unguessable.
    const token = randomBytes(32).toString('base64url');
    this.#tickets.set(token, { roomId, direction, expiresAt: this.#now() + this.#limits.ticketLifetimeSeconds * 1000 });
    return token;
  }

  /** Checks a ticket token against the channel and the role asked for in connect. */
  verifyTicket(token: string, channelId: string, direction: Direction): { roomId: string } | TicketRejection {
    const ticket = this.#tickets.get(token);
    if (!ticket) return 'unknown';
    if (ticket.expiresAt <= this.#now()) {
      this.#tickets.delete(token);
      return 'expired';
    }
    if (ticket.roomId !== channelId || !this.#rooms.has(ticket.roomId)) return 'wrong-room';
    if (ticket.direction !== direction) return 'wrong-direction';
    return { roomId: ticket.roomId };
  }

  /** Records a connection that joined (+1) or left (-1) a room; the REST view follows after the delay. */
  adjustCount(roomId: string, direction: Direction, delta: 1 | -1): void {
    const room = this.#rooms.get(roomId);
    if (!room) return;
    room.live[direction] = Math.max(0, room.live[direction] + delta);
    const publish = (): void => {
      // The room may have been deleted and re-created counts must not leak into another one.
      if (this.#rooms.get(roomId) === room) room.shown = { ...room.live };
    };
    if (this.#limits.countDelayMs === 0) {
      publish();
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      publish();
    }, this.#limits.countDelayMs);
    this.#timers.add(timer);
  }

  /** Forgets every room and ticket and cancels pending count updates. */
  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const ids = [...this.#rooms.keys()];
    for (const id of ids) this.delete(id);
    this.#tickets.clear();
  }

  #dropExpiredTickets(): void {
    const now = this.#now();
    for (const [token, ticket] of this.#tickets) if (ticket.expiresAt <= now) this.#tickets.delete(token);
  }
}

function view(room: Room): RoomView {
  return { id: room.id, up_count: room.shown.up, down_count: room.shown.down, created_at: room.createdAt.toISOString() };
}
