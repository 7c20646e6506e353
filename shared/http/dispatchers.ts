import { Pool } from 'undici';

/** A keep-alive connection pool to one origin, shared by every client that talks to it. */
export interface DispatcherLease {
  readonly pool: Pool;
  /** Gives the pool back; the last lease closes it. Calling twice is harmless. */
  release(): Promise<void>;
}

interface Entry {
  pool: Pool;
  users: number;
}

const pools = new Map<string, Entry>();

/** Idle sockets stay open this long so that bursts of calls skip the TCP (and TLS) handshake. */
const KEEP_ALIVE_MS = 30_000;

/**
 * Lends the pool for `origin`, creating it on first use. Reference counting (rather than one
 * pool per client) lets a token source and several vision/streaming clients of the same
 * service share sockets, while close() on the last of them still frees everything.
 */
export function acquireDispatcher(origin: string): DispatcherLease {
  const key = new URL(origin).origin;
  let entry = pools.get(key);
  if (!entry || entry.pool.closed || entry.pool.destroyed) {
    entry = {
      pool: new Pool(key, {
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS * 2,
        connect: { timeout: 10_000 },
      }),
      users: 0,
    };
    pools.set(key, entry);
  }
  entry.users += 1;
  const current = entry;
  let released = false;
  return {
    pool: current.pool,
    async release(): Promise<void> {
      if (released) return;
      released = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (pools.get(key) === current) pools.delete(key);
      await current.pool.close().catch(() => current.pool.destroy());
    },
  };
}
