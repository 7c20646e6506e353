import type { Node, NodeAPI, NodeDef } from 'node-red';
import { ApiError, InputError, isClientError } from '../shared/errors';
import { serviceConnection } from './lib/action-node';
import { failureText } from './lib/flow-error';
import { attachWidgetSource, LIVE_TICKET_EVENT, slimEvent, type DashboardGroup, type TicketSocket } from './live-widget';

/** The widget's settings, as the editor saves them (every one reaches each browser: no secret here). */
interface LiveDef extends NodeDef {
  group: string;
  service: string;
  roomId?: string;
  /** VP8, VP9 or H264: the codec the browsers ask the room for. */
  codec?: string;
  /** Stream ids or labels to show, separated by commas or blanks; empty: every stream. */
  streams?: string;
  /** Names for stream ids, JSON. */
  labels?: string;
  faces?: boolean;
  tileHeight?: number | string;
  width?: number | string;
  height?: number | string;
  order?: number;
}

/** What a browser gets: its own ticket, or why there is none. */
type TicketAnswer = { ok: true; roomId: string; url: string; token: string; codec: string; serverTime: number } | { ok: false; message: string; code: string; retryAfterMs?: number };

type LiveNode = Node & { liveTicket?: (socketId: string) => Promise<TicketAnswer>; liveGone?: (socketId: string) => void };

const CODECS = new Set(['VP8', 'VP9', 'H264']);
/** A browser that asks again sooner than this gets no second ticket (a page gone wild must not spend the account's calls). */
const MIN_TICKET_INTERVAL_MS = 400;
/** A missing room is asked about again after this long (it may be made again). */
const MISSING_ROOM_RETRY_MS = 5_000;

/** Requests already answered, per browser socket: several widgets (or a redeployed one) may each hear the same request. */
const answered = new WeakMap<object, Set<string>>();

/**
 * Registers `vision-streaming-live`: a Dashboard 2.0 widget that plays a room's cameras in each
 * browser that opens the page, with the face watch node's events drawn over them. Each browser asks
 * for a download ticket over its own dashboard socket; the ticket goes back on that socket only, so
 * its token reaches no message, flow, log or other browser.
 */
export = function register(RED: NodeAPI): void {
  function LiveNode(this: LiveNode, def: LiveDef): void {
    RED.nodes.createNode(this, def);
    const node: LiveNode = this; // eslint-disable-line @typescript-eslint/no-this-alias -- handlers below are arrow functions
    const connection = serviceConnection(RED, def.service);
    const group = RED.nodes.getNode(def.group) as (Node & DashboardGroup) | null;
    const codec = CODECS.has(String(def.codec)) ? String(def.codec) : 'VP8';
    let roomId = (def.roomId ?? '').trim();
    let malformed = 0;
    const viewers = new Set<string>();
    const lastTicket = new Map<string, number>();

    const show = (): void => {
      if (!roomId) node.status({ fill: 'red', shape: 'ring', text: 'no room' });
      else node.status({ fill: 'green', shape: 'dot', text: `${viewers.size} viewer${viewers.size === 1 ? '' : 's'}${malformed ? `, ${malformed} malformed events ignored` : ''}` });
    };

    if (!group || typeof group.register !== 'function') {
      node.status({ fill: 'red', shape: 'ring', text: 'no dashboard group' });
      node.error(new InputError('invalid_input', 'vision-streaming-live needs a Dashboard 2.0 group (ui-group): pick one in the node', { field: 'group', limit: 'a ui-group node' }).message);
      return;
    }
    if (connection) connection.register(node);
    else node.status({ fill: 'red', shape: 'ring', text: 'no service config' });

    node.liveTicket = async (socketId) => {
      if (!connection) return { ok: false, code: 'invalid_input', message: 'This live view has no service configuration: pick one in the node.' };
      if (!roomId) return { ok: false, code: 'invalid_input', message: 'No room: pick one in the node, or send it msg.roomId.' };
      const now = Date.now();
      if (now - (lastTicket.get(socketId) ?? 0) < MIN_TICKET_INTERVAL_MS) return { ok: false, code: 'too_soon', message: 'Asked again too soon; waiting.', retryAfterMs: MIN_TICKET_INTERVAL_MS };
      lastTicket.set(socketId, now);
      const room = roomId;
      try {
        const ticket = await connection.streaming().createTicket(room, 'down');
        connection.report();
        viewers.add(socketId);
        show();
        // serverTime lets the page measure a box's lag on Node-RED's clock, whatever its own clock says.
        return { ok: true, roomId: ticket.id, url: ticket.url, token: ticket.access_token, codec, serverTime: Date.now() };
      } catch (err) {
        connection.report(err);
        const words = ticketFailure(err, room);
        node.status({ fill: 'red', shape: 'ring', text: words.status });
        return { ok: false, code: words.code, message: words.message, retryAfterMs: words.retryAfterMs };
      }
    };

    node.liveGone = (socketId) => {
      lastTicket.delete(socketId);
      if (viewers.delete(socketId)) show();
    };

    const evts = {
      // Face events go to every browser of the page, slimmed to what a box needs (no pictures);
      // a message that is not one is dropped here and counted.
      beforeSend: (msg: Record<string, unknown>): Record<string, unknown> => {
        if (typeof msg.roomId === 'string' && msg.roomId.trim() !== '' && (typeof msg.payload !== 'object' || msg.payload === null)) {
          roomId = msg.roomId.trim();
          lastTicket.clear();
          show();
          return { topic: 'room', payload: { roomId } };
        }
        const slim = slimEvent(msg.payload);
        if (!slim) {
          malformed++;
          show();
          // The dashboard needs a message back (null breaks its input handler): the pages count it too.
          return { topic: 'ignored' };
        }
        return { topic: slim.event, payload: slim };
      },
      // The dashboard's default would keep each message for late browsers and pass it on: a face
      // event is stale in a second, and the widget has no output.
      onInput: (): void => undefined,
      onSocket: {
        [LIVE_TICKET_EVENT]: (socket: TicketSocket, id: unknown, request: unknown): void => {
          void answerTicket(RED, socket, id, request);
        },
      },
    };
    group.register(node, { ...def, type: 'vision-streaming-live' }, evts);
    attachWidgetSource(group, node.id);
    show();

    node.on('close', (_removed: boolean, done: () => void) => {
      node.liveTicket = undefined;
      node.liveGone = undefined;
      const left = connection ? connection.deregister(node) : Promise.resolve();
      left.then(done, done);
    });
  }
  RED.nodes.registerType('vision-streaming-live', LiveNode);
};

/** Answers one browser's ticket request on its own socket; the node is looked up now, so a redeployed node answers too. */
async function answerTicket(RED: NodeAPI, socket: TicketSocket, id: unknown, request: unknown): Promise<void> {
  if (typeof id !== 'string' || (typeof request !== 'number' && typeof request !== 'string')) return;
  const node = RED.nodes.getNode(id) as LiveNode | null;
  if (!node || typeof node.liveTicket !== 'function') return;
  let seen = answered.get(socket);
  if (!seen) answered.set(socket, (seen = new Set()));
  if (!seen.has(id)) {
    seen.add(id);
    // A browser that leaves is no viewer any more (the node is looked up again: it may have been redeployed).
    socket.once?.('disconnect', () => (RED.nodes.getNode(id) as LiveNode | null)?.liveGone?.(socket.id));
  }
  const key = `${id}:${String(request)}`;
  if (seen.has(key)) return;
  seen.add(key);
  let answer: TicketAnswer;
  try {
    answer = await node.liveTicket(socket.id);
  } catch {
    answer = { ok: false, code: 'error', message: 'Node-RED could not make a ticket.' };
  }
  socket.emit(LIVE_TICKET_EVENT, id, request, answer);
}

/** The words a browser's tile and the node's status show for a ticket that failed (no secret in them). */
function ticketFailure(err: unknown, roomId: string): { code: string; status: string; message: string; retryAfterMs?: number } {
  const status = err instanceof ApiError ? err.status : undefined;
  const code = isClientError(err) ? err.code : 'error';
  if (status === 404) return { code, status: 'room not found', message: `Room ${roomId} does not exist: pick another room, or send its id in msg.roomId.`, retryAfterMs: MISSING_ROOM_RETRY_MS };
  if (status === 401 || status === 403 || code === 'token_provider_failed') {
    return { code, status: 'credential refused', message: 'The service refused the credential of this live view\'s service configuration: check its client id and secret.', retryAfterMs: 30_000 };
  }
  if (err instanceof InputError) return { code, status: `invalid ${err.field}`, message: err.message, retryAfterMs: 30_000 };
  return { code, status: failureText(err), message: `No ticket: ${isClientError(err) ? err.message : 'the service did not answer'}.` };
}
