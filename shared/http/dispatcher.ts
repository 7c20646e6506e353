import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { InputError } from '../errors';

export type { Dispatcher } from 'undici';

/** Idle sockets stay open this long so that bursts of calls skip the TCP (and TLS) handshake. */
const KEEP_ALIVE_MS = 30_000;

/** Requests still running this long after a pool is asked to close are cut (hosts wait ~15 s for a close). */
const CLOSE_GRACE_MS = 2_000;

let shared: Dispatcher | undefined;

/**
 * Sockets a pool opens to one origin (one service address) at most, unless told otherwise: more
 * requests at once wait their turn in the pool's queue instead of each opening a socket (2000
 * messages into a node would otherwise take 2000 file descriptors, past a usual limit of 1024).
 */
export const DEFAULT_CONNECTIONS_PER_ORIGIN = 32;

/** Environment variable that sets the connections per origin of every pool the package builds. */
export const CONNECTIONS_ENV = 'VS_MAX_CONNECTIONS';

/** Largest accepted connections per origin. */
const MAX_CONNECTIONS_PER_ORIGIN = 1024;

/** How a pool is built. */
export interface DispatcherOptions {
  /** Sockets per origin at most, 1..1024 (default: VS_MAX_CONNECTIONS, else 32). */
  connections?: number;
}

/** The connections per origin: the option, else VS_MAX_CONNECTIONS, else the default; an InputError names a bad one. */
export function connectionsPerOrigin(given?: number, env: NodeJS.ProcessEnv = process.env): number {
  const text = env[CONNECTIONS_ENV];
  const [value, field] = given !== undefined ? [given, 'connections'] : text !== undefined && text.trim() !== '' ? [Number(text), CONNECTIONS_ENV] : [DEFAULT_CONNECTIONS_PER_ORIGIN, 'connections'];
  if (!(Number.isInteger(value) && value >= 1 && value <= MAX_CONNECTIONS_PER_ORIGIN)) {
    throw new InputError('invalid_input', `${field} must be a whole number of connections per service address from 1 to ${MAX_CONNECTIONS_PER_ORIGIN}`, { field, limit: `1..${MAX_CONNECTIONS_PER_ORIGIN}` });
  }
  return value;
}

/**
 * A new connection pool as every part of the package builds one: at most `connections` sockets
 * per origin (default 32, see connectionsPerOrigin(); further requests queue), keep-alive per
 * origin (idle pools closed by undici itself), a 10 s connect timeout, and HTTP_PROXY,
 * HTTPS_PROXY and NO_PROXY honoured (lower case too; a plain agent when none is set). The proxy
 * variables are read when it is first used, NO_PROXY on every request. The caller closes it.
 */
export function createDispatcher(options: DispatcherOptions = {}): Dispatcher {
  return new EnvHttpProxyAgent({
    connections: connectionsPerOrigin(options.connections),
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS * 2,
    connect: { timeout: 10_000 },
  });
}

/**
 * The dispatcher every client uses unless given one: a single pool for the process, built by
 * createDispatcher(). It is never closed: its idle sockets do not keep the process alive.
 */
export function defaultDispatcher(): Dispatcher {
  shared ??= createDispatcher();
  return shared;
}

/** Closes a pool gracefully, or destroys it (ending the sockets) when requests outlive the grace period. */
export async function closeDispatcher(dispatcher: Dispatcher, graceMs = CLOSE_GRACE_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const outcome = await Promise.race([dispatcher.close().then(() => 'closed' as const, () => 'late' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') await dispatcher.destroy().catch(() => undefined);
}
