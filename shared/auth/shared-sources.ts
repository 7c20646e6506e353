import { createHash } from 'node:crypto';
import { SharedRegistry } from '../util/shared-registry';
import { TokenSource, checkTokenSourceOptions, type TokenSourceOptions } from './token-source';

/** A token source lent to one user; give it back with release(). */
export interface TokenSourceLease {
  readonly tokens: TokenSource;
  /** The last release of a credential set closes its source. Calling twice is harmless. */
  release(): Promise<void>;
}

const sources = new SharedRegistry<TokenSource>(
  (tokens) => tokens.close(),
  // A source closed through its own close() (rather than released) must not be lent again.
  (tokens) => !tokens.closed,
);

/**
 * One TokenSource per credential set (auth address, client id, secret, scopes) for the whole
 * process, so that many nodes or flows configured with the same client share one cached token and
 * one request in flight. Settings other than the credentials (retry, margin) come from the first
 * caller, though every caller's options are checked. The key holds a digest of the secret, never
 * the secret itself.
 */
export function acquireTokenSource(options: TokenSourceOptions): TokenSourceLease {
  const checked = checkTokenSourceOptions(options);
  const key = JSON.stringify([
    checked.authUrl,
    options.clientId,
    createHash('sha256').update(options.clientSecret).digest('hex'),
    [...checked.scopes].sort(),
  ]);
  const lease = sources.acquire(key, () => new TokenSource(options));
  return { tokens: lease.value, release: lease.release };
}
