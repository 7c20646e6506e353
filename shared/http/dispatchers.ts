import { Pool } from 'undici';
import { SharedRegistry } from '../util/shared-registry';

/** A keep-alive connection pool to one origin, shared by every client that talks to it. */
export interface DispatcherLease {
  readonly pool: Pool;
  /** Gives the pool back; the last lease closes it. Calling twice is harmless. */
  release(): Promise<void>;
}

/** Idle sockets stay open this long so that bursts of calls skip the TCP (and TLS) handshake. */
const KEEP_ALIVE_MS = 30_000;

const pools = new SharedRegistry<Pool>(
  (pool) => pool.close().catch(() => pool.destroy()),
  (pool) => !pool.closed && !pool.destroyed,
);

/**
 * Lends the pool for `origin`, creating it on first use. Reference counting (rather than one
 * pool per client) lets a token source and several vision/streaming clients of the same
 * service share sockets, while close() on the last of them still frees everything.
 */
export function acquireDispatcher(origin: string): DispatcherLease {
  const key = new URL(origin).origin;
  const lease = pools.acquire(
    key,
    () => new Pool(key, { keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS * 2, connect: { timeout: 10_000 } }),
  );
  return { pool: lease.value, release: lease.release };
}

/**
 * The caller's own pool (left open on release: the caller keeps ownership) or a lease of the
 * shared pool for `origin`, so every client can treat its pool the same way.
 */
export function usePool(origin: string, own?: Pool): DispatcherLease {
  if (own) return { pool: own, release: () => Promise.resolve() };
  return acquireDispatcher(origin);
}
