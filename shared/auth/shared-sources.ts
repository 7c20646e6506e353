import { createHash } from 'node:crypto';
import { SharedRegistry } from '../util/shared-registry';
import { TokenSource, type TokenSourceOptions } from './token-source';

/** A token source lent to one user; give it back with release(). */
export interface TokenSourceLease {
  readonly tokens: TokenSource;
  /** The last release of a credential set closes its source. Calling twice is harmless. */
  release(): Promise<void>;
}

const sources = new SharedRegistry<TokenSource>((tokens) => tokens.close());

/**
 * One TokenSource per credential set (auth address, client id, secret, scopes) for the whole
 * process, so that many nodes or flows configured with the same client share one cached token and
 * one request in flight. Settings other than the credentials (retry, margin) come from the first
 * caller. The key holds a digest of the secret, never the secret itself.
 */
export function acquireTokenSource(options: TokenSourceOptions): TokenSourceLease {
  // Built first so that bad options throw, and so the key uses the normalised address and scopes.
  const created = new TokenSource(options);
  const key = JSON.stringify([
    created.authUrl,
    created.clientId,
    createHash('sha256').update(options.clientSecret).digest('hex'),
    [...created.scopes].sort(),
  ]);
  const lease = sources.acquire(key, () => created);
  if (lease.value !== created) void created.close();
  return { tokens: lease.value, release: lease.release };
}
