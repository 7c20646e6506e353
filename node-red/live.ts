import type { Node, NodeAPI, NodeDef } from 'node-red';
import { ApiError, InputError, isClientError } from '../shared/errors';
import { scaleJpeg } from '../shared/picture';
import { serviceConnection } from './lib/action-node';
import { failureText } from './lib/flow-error';
import { guardDashboardSocket } from './live-guard';
import { MIN_STILL_INTERVAL_MS, PREVIEW_QUALITY, PREVIEW_WIDTH, slimTracks, STILL_BURST, StillPreviews, STILLS_PER_SECOND, StillStore } from './live-stills';
import { firstHearing, hearings, TICKET_BURST, TicketGate, ticketRequest, TICKETS_PER_SECOND } from './live-tickets';
import { LIVE_STILL_EVENT, LIVE_TICKET_EVENT, setWidgetState, slimEvent, type DashboardGroup, type LiveStill, type TicketSocket } from './live-widget';
import { WIDGET_MISSING, widgetPackageListed } from './live-widget-package';

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

type LiveNode = Node & { liveTicket?: (socket: TicketSocket) => Promise<TicketAnswer>; liveStills?: (socket: TicketSocket) => LiveStill[] | undefined };

/** Still requests heard, apart from ticket requests (a page numbers each kind on its own). */
const firstStillHearing = hearings();

const CODECS = new Set(['VP8', 'VP9', 'H264']);
/** A missing room is asked about again after this long (it may be made again). */
const MISSING_ROOM_RETRY_MS = 5_000;
/** The status tells of refused tickets at most this often (a flood of requests must not flood the editor). */
const REFUSAL_STATUS_MS = 1_000;
/** The status stays yellow this long after the last ticket it refused. */
const REFUSAL_SHOWN_MS = 10_000;

/** A message of the flow that switches the room: a room id and no event payload. */
function roomSwitch(msg: Record<string, unknown>): string | undefined {
  if (typeof msg.roomId !== 'string' || msg.roomId.trim() === '') return undefined;
  return typeof msg.payload !== 'object' || msg.payload === null ? msg.roomId.trim() : undefined;
}

/**
 * Registers `vision-streaming-live`: a Dashboard 2.0 widget that plays a room's cameras in each
 * browser that opens the page, with the face watch node's events drawn over them. Each browser asks
 * for a download ticket over its own dashboard socket; the ticket goes back on that socket only, so
 * its token reaches no message, flow, log or other browser. Only the flow steers it: what a browser
 * sends reaches neither the room nor any setting, and tickets come from a bucket per node.
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
    const gate = new TicketGate();
    const stillGate = new TicketGate({ burst: STILL_BURST, perSecond: STILLS_PER_SECOND, minIntervalMs: MIN_STILL_INTERVAL_MS });
    const stills = new StillStore();
    const refusals: { count: number; last: number; shown: number; calm?: NodeJS.Timeout } = { count: 0, last: 0, shown: 0 };
    /** The sockets this node hears leave, with the listener to take off when the node closes. */
    const following = new Map<TicketSocket, () => void>();

    const show = (): void => {
      if (!roomId) {
        node.status({ fill: 'red', shape: 'ring', text: 'no room' });
        return;
      }
      const limited = Date.now() - refusals.last < REFUSAL_SHOWN_MS;
      const text = `${viewers.size} viewer${viewers.size === 1 ? '' : 's'}${malformed ? `, ${malformed} malformed events ignored` : ''}` +
        (refusals.count ? `, ${refusals.count} ticket${refusals.count === 1 ? '' : 's'} refused (limit ${TICKET_BURST} + ${TICKETS_PER_SECOND}/s)` : '');
      node.status({ fill: limited ? 'yellow' : 'green', shape: limited ? 'ring' : 'dot', text });
    };

    const follow = (socket: TicketSocket): void => {
      // A socket already closed says so no more: nothing is kept for it.
      if (following.has(socket) || socket.connected === false) return;
      const gone = (): void => {
        following.delete(socket);
        gate.forget(socket.id);
        stillGate.forget(socket.id);
        if (viewers.delete(socket.id)) show();
      };
      following.set(socket, gone);
      socket.once?.('disconnect', gone);
    };

    if (!group || typeof group.register !== 'function') {
      node.status({ fill: 'red', shape: 'ring', text: 'no dashboard group' });
      node.error(new InputError('invalid_input', 'vision-streaming-live needs a Dashboard 2.0 group (ui-group): pick one in the node', { field: 'group', limit: 'a ui-group node' }).message);
      return;
    }
    if (connection) connection.register(node);
    else node.status({ fill: 'red', shape: 'ring', text: 'no service config' });

    node.liveTicket = async (socket) => {
      if (!connection) return { ok: false, code: 'invalid_input', message: 'This live view has no service configuration: pick one in the node.' };
      if (!roomId) return { ok: false, code: 'invalid_input', message: 'No room: pick one in the node, or send it msg.roomId.' };
      follow(socket);
      const admitted = gate.admit(socket);
      if (!admitted.ok) {
        if (admitted.reason === 'too_soon') return { ok: false, code: 'too_soon', message: 'Asked again too soon; waiting.', retryAfterMs: admitted.retryAfterMs };
        refusals.count++;
        refusals.last = Date.now();
        if (refusals.last - refusals.shown >= REFUSAL_STATUS_MS) {
          refusals.shown = refusals.last;
          show();
        }
        // Green again once it has refused none for a while.
        clearTimeout(refusals.calm);
        refusals.calm = setTimeout(show, REFUSAL_SHOWN_MS);
        refusals.calm.unref();
        return { ok: false, code: 'rate_limited', message: 'Many pages asked for the live view at once; waiting for a turn.', retryAfterMs: admitted.retryAfterMs };
      }
      const room = roomId;
      try {
        const ticket = await connection.streaming().createTicket(room, 'down');
        connection.report();
        if (following.has(socket)) viewers.add(socket.id);
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

    // Small copies of the stills in the widget's state: a page has one the moment its tile mounts
    // (cleared first: the state store outlives a redeploy).
    const previews = new StillPreviews(
      (list) => setWidgetState(group, node, 'stills', list),
      (jpeg) => scaleJpeg(jpeg, PREVIEW_WIDTH, { quality: PREVIEW_QUALITY }),
    );
    previews.clear();

    // Each stream's latest still, for a page whose widget mounts (undefined: not now, the limits say).
    node.liveStills = (socket) => {
      follow(socket);
      return stillGate.admit(socket).ok ? stills.list() : undefined;
    };

    // Only a message of the flow switches the room or gives stills: this handler hears the node's
    // input alone (the dashboard's own input handler, added below, runs after it and tells the pages).
    node.on('input', (msg: Record<string, unknown>) => {
      const next = roomSwitch(msg);
      if (next === undefined) {
        const tracks = msg.topic === 'tracks' ? slimTracks(msg.payload) : undefined;
        if (tracks && stills.take(tracks, msg.still)) previews.offer(tracks, msg.still);
        return;
      }
      roomId = next;
      gate.reopen();
      // The stills show the room before.
      stills.clear();
      previews.clear();
      show();
    });

    const evts = {
      // What the pages get of a message of the flow: face events slimmed to what a box needs (no
      // pictures), a room switch as the room's id; a message that is neither is dropped and counted.
      // The dashboard calls this for the node's input only: the hooks below keep a browser's
      // messages from it.
      beforeSend: (msg: Record<string, unknown>): Record<string, unknown> => {
        if (roomSwitch(msg) !== undefined) return { topic: 'room', payload: { roomId } };
        // The faces in view at a sample (the watch node's tracks output), without the still.
        const tracks = slimTracks(msg.payload);
        if (tracks) return { topic: 'tracks', payload: tracks };
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
      // A browser's widget-send and widget-change would otherwise go through beforeSend (and the
      // dashboard's store) as if the flow had sent them: any visitor could switch every viewer's
      // room or draw boxes on their pages. The widget sends neither; they are dropped.
      onSend: (): void => undefined,
      onChange: (): void => undefined,
      onSocket: {
        // Each new socket of this dashboard gets the guard against Dashboard 2.0's malformed-message crash.
        connection: (socket: TicketSocket): void => guardDashboardSocket(socket),
        [LIVE_TICKET_EVENT]: (socket: TicketSocket, id: unknown, request: unknown): void => {
          void answerTicket(RED, socket, id, request);
        },
        [LIVE_STILL_EVENT]: (socket: TicketSocket, id: unknown, request: unknown): void => answerStills(RED, socket, id, request),
      },
    };
    group.register(node, { ...def, type: 'vision-streaming-live' }, evts);
    if (widgetPackageListed(RED.settings.userDir) === false) node.warn(WIDGET_MISSING);
    show();

    node.on('close', (_removed: boolean, done: () => void) => {
      node.liveTicket = undefined;
      node.liveStills = undefined;
      stills.clear();
      previews.clear();
      clearTimeout(refusals.calm);
      for (const [socket, gone] of following) socket.off?.('disconnect', gone);
      following.clear();
      const left = connection ? connection.deregister(node) : Promise.resolve();
      left.then(done, done);
    });
  }
  RED.nodes.registerType('vision-streaming-live', LiveNode);
};

/** Answers one browser's ticket request on its own socket; the node is looked up now, so a redeployed node answers too. */
async function answerTicket(RED: NodeAPI, socket: TicketSocket, id: unknown, request: unknown): Promise<void> {
  // Not a request the widget sends (ids over their length limits included): no answer, nothing kept.
  const asked = ticketRequest(id, request);
  if (!asked) return;
  const node = RED.nodes.getNode(asked.id) as LiveNode | null;
  if (!node || typeof node.liveTicket !== 'function') return;
  if (!firstHearing(socket, asked)) return;
  let answer: TicketAnswer;
  try {
    answer = await node.liveTicket(socket);
  } catch {
    answer = { ok: false, code: 'error', message: 'Node-RED could not make a ticket.' };
  }
  socket.emit(LIVE_TICKET_EVENT, asked.id, asked.request, answer);
}

/**
 * Answers one page's still request on its own socket, with the same id bounds as a ticket request;
 * a request over the node's limits (a burst, then a rate, and one a second per socket) gets no answer.
 */
function answerStills(RED: NodeAPI, socket: TicketSocket, id: unknown, request: unknown): void {
  const asked = ticketRequest(id, request);
  if (!asked) return;
  const node = RED.nodes.getNode(asked.id) as LiveNode | null;
  if (!node || typeof node.liveStills !== 'function') return;
  if (!firstStillHearing(socket, asked)) return;
  const list = node.liveStills(socket);
  if (list) socket.emit(LIVE_STILL_EVENT, asked.id, asked.request, list);
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
