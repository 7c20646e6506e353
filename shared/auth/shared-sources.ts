import { createHash } from 'node:crypto';
import { TokenSource, type TokenSourceOptions } from './token-source';

/** A token source lent to one user; give it back with release(). */
export interface TokenSourceLease {
  readonly tokens: TokenSource;
  /** The last release of a credential set closes its source. Calling twice is harmless. */
  release(): Promise<void>;
}

interface Entry {
  tokens: TokenSource;
  users: number;
}

const sources = new Map<string, Entry>();

/**
 * One TokenSource per credential set (auth address, client id, secret, scopes) for the whole
 * process, so that many nodes or flows configured with the same client share one cached token and
 * one request in flight. Settings other than the credentials (retry, margin) come from the first
 * caller. The key holds a digest of the secret, never the secret itself.
 */
export function acquireTokenSource(options: TokenSourceOptions): TokenSourceLease {
  const created = new TokenSource(options);
  const key = JSON.stringify([
    created.authUrl,
    created.clientId,
    createHash('sha256').update(options.clientSecret).digest('hex'),
    [...created.scopes].sort(),
  ]);
  let entry = sources.get(key);
  if (entry) {
    void created.close();
  } else {
    entry = { tokens: created, users: 0 };
    sources.set(key, entry);
  }
  entry.users += 1;
  const current = entry;
  let released = false;
  return {
    tokens: current.tokens,
    async release(): Promise<void> {
      if (released) return;
      released = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (sources.get(key) === current) sources.delete(key);
      await current.tokens.close();
    },
  };
}
