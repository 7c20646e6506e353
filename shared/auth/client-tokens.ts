import type { RetryPolicy } from '../http/retry';
import { TokenSource } from './token-source';

/** Client credentials from which a service client builds (and owns) its token source. */
export interface ClientCredentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

/** A token source owned by the caller: a service client uses it but never closes it. */
export interface CallerTokenSource {
  tokens: TokenSource;
}

/** The token source of a service client and whether the client must close it. */
export interface ClientTokens {
  tokens: TokenSource;
  owned: boolean;
}

/** Picks the caller's token source, or builds one for `scopes` from the credentials. */
export function clientTokens(
  options: (ClientCredentials | CallerTokenSource) & { retry?: Partial<RetryPolicy> },
  scopes: readonly string[],
): ClientTokens {
  if ('tokens' in options && options.tokens) return { tokens: options.tokens, owned: false };
  const { authUrl, clientId, clientSecret } = options as ClientCredentials;
  return { tokens: new TokenSource({ authUrl, clientId, clientSecret, scopes, retry: options.retry }), owned: true };
}
