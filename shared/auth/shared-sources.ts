import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
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

/** Distinct dispatchers get distinct numbers (a dispatcher cannot be put in a string key). */
const dispatcherIds = new WeakMap<Dispatcher, number>();
let nextDispatcherId = 1;

/**
 * One TokenSource per credential set (auth address, client id, secret, scopes) and settings
 * (retry, renewal margin, timeout, dispatcher) for the whole process, so that many nodes or flows
 * configured alike share one cached token and one request in flight. A caller whose settings
 * differ gets a source of its own rather than silently inheriting another caller's settings. The
 * key holds a digest of the secret, never the secret itself.
 */
export function acquireTokenSource(options: TokenSourceOptions): TokenSourceLease {
  const checked = checkTokenSourceOptions(options);
  const key = JSON.stringify([
    checked.authUrl,
    options.clientId,
    createHash('sha256').update(options.clientSecret).digest('hex'),
    [...checked.scopes].sort(),
    [checked.retry.retries, checked.retry.baseDelayMs, checked.retry.maxDelayMs],
    checked.renewBeforeMs,
    checked.timeoutMs,
    options.dispatcher ? dispatcherId(options.dispatcher) : 0,
  ]);
  const lease = sources.acquire(key, () => new TokenSource(options));
  return { tokens: lease.value, release: lease.release };
}

function dispatcherId(dispatcher: Dispatcher): number {
  let id = dispatcherIds.get(dispatcher);
  if (id === undefined) {
    id = nextDispatcherId++;
    dispatcherIds.set(dispatcher, id);
  }
  return id;
}
