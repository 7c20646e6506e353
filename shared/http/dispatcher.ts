import { EnvHttpProxyAgent, type Dispatcher } from 'undici';

export type { Dispatcher } from 'undici';

/** Idle sockets stay open this long so that bursts of calls skip the TCP (and TLS) handshake. */
const KEEP_ALIVE_MS = 30_000;

/** Requests still running this long after a pool is asked to close are cut (hosts wait ~15 s for a close). */
const CLOSE_GRACE_MS = 2_000;

let shared: Dispatcher | undefined;

/**
 * A new connection pool as every part of the package builds one: keep-alive per origin (idle
 * pools closed by undici itself), a 10 s connect timeout, and HTTP_PROXY, HTTPS_PROXY and
 * NO_PROXY honoured (lower case too; a plain agent when none is set). The proxy variables are
 * read when it is first used, NO_PROXY on every request. The caller closes it.
 */
export function createDispatcher(): Dispatcher {
  return new EnvHttpProxyAgent({
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
