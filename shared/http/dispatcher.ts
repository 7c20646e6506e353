import { EnvHttpProxyAgent, type Dispatcher } from 'undici';

export type { Dispatcher } from 'undici';

/** Idle sockets stay open this long so that bursts of calls skip the TCP (and TLS) handshake. */
const KEEP_ALIVE_MS = 30_000;

let shared: Dispatcher | undefined;

/**
 * The dispatcher every client uses unless given one: a single undici agent for the process. It
 * keeps a keep-alive pool per origin (closing idle ones itself) and honours HTTP_PROXY,
 * HTTPS_PROXY and NO_PROXY (lower case too); with none of them set it is a plain agent. The proxy
 * variables are read when it is first used, NO_PROXY on every request. It is never closed: its
 * idle sockets do not keep the process alive.
 */
export function defaultDispatcher(): Dispatcher {
  shared ??= new EnvHttpProxyAgent({
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS * 2,
    connect: { timeout: 10_000 },
  });
  return shared;
}
