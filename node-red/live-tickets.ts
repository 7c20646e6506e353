/**
 * How the live view hands out download tickets, whatever the browsers send: a request is answered
 * once however many widgets' handlers hear it, its ids have a length limit, and each node gives at
 * most a burst and then a steady rate of tickets, across every socket (the owner's quota is spent
 * only as fast as that).
 */
import { CallBudget } from '../shared/watch/budget';

/** Tickets a live node may give at once, before the steady rate applies. */
export const TICKET_BURST = 10;
/** Tickets a live node gives per second, once the burst is spent. */
export const TICKETS_PER_SECOND = 1;
/** A browser that asks again sooner than this gets no second ticket (a page gone wild must not empty the node's bucket alone). */
export const MIN_TICKET_INTERVAL_MS = 400;
/** Node-RED's node ids are 16 hex digits (a subflow instance's a few more). */
export const MAX_WIDGET_ID_LENGTH = 64;
/** The widget counts its requests; a request id is that number (or a short string). */
export const MAX_REQUEST_LENGTH = 32;

/** A ticket request as a widget sends it: its node's id and its request id. */
export interface TicketRequest {
  id: string;
  request: number | string;
}

/** The request, or undefined when it is not one the widget sends (wrong types, ids over their length limits). */
export function ticketRequest(id: unknown, request: unknown): TicketRequest | undefined {
  if (typeof id !== 'string' || id === '' || id.length > MAX_WIDGET_ID_LENGTH) return undefined;
  if (typeof request === 'number') return Number.isSafeInteger(request) ? { id, request } : undefined;
  if (typeof request === 'string' && request !== '' && request.length <= MAX_REQUEST_LENGTH) return { id, request };
  return undefined;
}

/**
 * Tells one request from its copies. Every live widget of a dashboard adds its handler for the event
 * to each socket (and a redeployed widget's handler stays beside the new one), so one request is heard
 * once per handler: socket.io calls them one after another for the same packet, in one turn of the
 * event loop. A request heard again in a later turn is a new one and is answered (within the node's
 * limits): a widget mounted again on the same page (the dashboard's own navigation back to its page)
 * counts its requests from 1 anew, and a copy-filter that remembered the socket's last request would
 * leave it without an answer until its wait ran out. Nothing is kept past the turn.
 */
export function hearings(): (socket: object, asked: TicketRequest) => boolean {
  let heard = new WeakMap<object, Map<string, number | string>>();
  let forgetting = false;
  return (socket, asked) => {
    let perNode = heard.get(socket);
    if (!perNode) heard.set(socket, (perNode = new Map()));
    if (perNode.get(asked.id) === asked.request) return false;
    perNode.set(asked.id, asked.request);
    if (!forgetting) {
      forgetting = true;
      setImmediate(() => {
        heard = new WeakMap();
        forgetting = false;
      });
    }
    return true;
  };
}

/** True the first time a socket's ticket request is heard in this turn (and remembers it); false for the copies. */
export const firstHearing = hearings();

/** A dashboard socket as the gate sees it. */
export interface GateSocket {
  readonly id: string;
  readonly connected?: boolean;
}

/** Whether a socket may have a ticket now, or why not and when to ask again. */
export type Admission = { ok: true } | { ok: false; reason: 'too_soon' | 'rate_limited'; retryAfterMs: number };

/** Sockets remembered before the gate looks for ones that closed without saying so. */
const SWEEP_AT = 256;

/** A gate's limits: a burst, then a steady rate per second across sockets, and a minimum interval per socket. */
export interface GateLimits {
  burst: number;
  perSecond: number;
  minIntervalMs: number;
}

/** One live node's ticket limits (or another request's, given its own): a token bucket shared by every socket, and a minimum interval per socket. */
export class TicketGate {
  readonly #limits: GateLimits;
  readonly #bucket: CallBudget;
  readonly #asked = new Map<string, { socket: GateSocket; at: number }>();

  constructor(limits: GateLimits = { burst: TICKET_BURST, perSecond: TICKETS_PER_SECOND, minIntervalMs: MIN_TICKET_INTERVAL_MS }) {
    this.#limits = limits;
    this.#bucket = new CallBudget(limits.perSecond, { capacity: limits.burst });
  }

  /** Takes a ticket's token for this socket, or says how long to wait. */
  admit(socket: GateSocket, now = Date.now()): Admission {
    const last = this.#asked.get(socket.id);
    const { minIntervalMs, perSecond } = this.#limits;
    if (last && now - last.at < minIntervalMs) return { ok: false, reason: 'too_soon', retryAfterMs: minIntervalMs };
    if (!this.#bucket.take()) {
      // Spread the pages that wait over a few seconds, so they do not all come back in the same instant.
      const wait = ((1 - this.#bucket.available) / perSecond) * 1000;
      return { ok: false, reason: 'rate_limited', retryAfterMs: Math.ceil(wait + Math.random() * 2000) };
    }
    if (!last && this.#asked.size >= SWEEP_AT) this.#sweep();
    this.#asked.set(socket.id, { socket, at: now });
    return { ok: true };
  }

  /** A socket that left. */
  forget(socketId: string): void {
    this.#asked.delete(socketId);
  }

  /** Every socket may ask again at once (the room changed); the bucket stays as it is. */
  reopen(): void {
    this.#asked.clear();
  }

  /** Sockets remembered (for tests and the status). */
  get size(): number {
    return this.#asked.size;
  }

  #sweep(): void {
    for (const [id, { socket }] of this.#asked) if (socket.connected === false) this.#asked.delete(id);
  }
}
