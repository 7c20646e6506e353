/**
 * A guard for Dashboard 2.0's socket: it drops the widget messages Dashboard 2.0 would choke on.
 * Dashboard 2.0 (1.31.0, the newest release) calls `id.startsWith` on a `widget-load`'s widget id,
 * in a handler whose failure nothing catches: one `42["widget-load",123]` from any visitor ends
 * Node-RED. The live node installs the guard on each socket of its dashboard; `dashboardIoMiddleware`
 * installs it on every socket from the start (settings.js `dashboard.ioMiddleware`).
 */

/** Dashboard 2.0's events from a browser whose first argument is a widget id. */
const WIDGET_EVENTS = new Set(['widget-load', 'widget-send', 'widget-change', 'widget-action']);

/** The part of a socket.io server socket the guard uses. */
export interface GuardedSocket {
  use?(fn: (packet: unknown[], next: (err?: Error) => void) => void): unknown;
}

/**
 * A socket.io packet middleware: a widget message whose id is not a string goes no further. It is
 * dropped without an error (an error would become the socket's `error` event, and with no listener
 * for it that would throw too).
 */
export function dropMalformedWidgetPackets(packet: unknown[], next: (err?: Error) => void): void {
  const [event, id] = packet;
  if (typeof event === 'string' && WIDGET_EVENTS.has(event) && (typeof id !== 'string' || id === '')) return;
  next();
}

const guarded = new WeakSet<object>();

/** Installs the guard on one socket (once, however many live nodes ask). */
export function guardDashboardSocket(socket: GuardedSocket): void {
  if (typeof socket.use !== 'function' || guarded.has(socket)) return;
  guarded.add(socket);
  socket.use(dropMalformedWidgetPackets);
}

/** A dashboard socket at its connection, as an `ioMiddleware` gets it. */
export interface ConnectingSocket extends GuardedSocket {
  handshake: { xdomain?: boolean };
  client: { conn: { request: { url?: string }; close(): void } };
  disconnect(close?: boolean): unknown;
}

/**
 * An `ioMiddleware` for Dashboard 2.0's settings (`dashboard: { ioMiddleware: dashboardIoMiddleware }`):
 * Dashboard 2.0's own checks, which a configured ioMiddleware replaces (no direct WebSocket without the
 * polling handshake, no cross-origin socket), then the guard on the socket.
 */
export function dashboardIoMiddleware(socket: ConnectingSocket, next: (err?: Error) => void): void {
  if ((socket.client.conn.request.url ?? '').includes('transport=websocket')) {
    socket.client.conn.close();
    return;
  }
  if (socket.handshake.xdomain !== false) {
    socket.disconnect(true);
    return;
  }
  guardDashboardSocket(socket);
  next();
}
