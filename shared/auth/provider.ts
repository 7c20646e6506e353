import { InputError } from '../errors';

/** An access token (and, for vision, its API key) with the moment it stops being valid. */
export interface Token {
  accessToken: string;
  apiKey?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Where a client gets its tokens: the built-in TokenSource, or tokens a host manages itself. */
export interface TokenProvider {
  /** Scopes the tokens carry; when given (and not empty), a client refuses a call its scopes do not cover. */
  readonly scopes?: readonly string[];
  /** A valid token; rejects with ApiError 'ABORTED' when `signal` fires first. */
  getToken(signal?: AbortSignal): Promise<Token>;
  /** Forgets `accessToken` after the service refused it (401). */
  invalidate(accessToken: string): void;
}

/** True when `value` has the shape of a TokenProvider. */
export function isTokenProvider(value: unknown): value is TokenProvider {
  const v = value as Partial<TokenProvider> | null | undefined;
  return typeof v === 'object' && v !== null && typeof v.getToken === 'function' && typeof v.invalidate === 'function';
}

/**
 * Refuses, before anything is sent, a call whose scope the provider's tokens lack. An empty or
 * absent list is not checked: the authorization server then grants the client's default scopes.
 */
export function checkScope(provider: TokenProvider | undefined, scope: string | undefined, operation: string): void {
  const scopes = provider?.scopes;
  if (scope === undefined || !scopes || scopes.length === 0 || scopes.includes(scope)) return;
  throw new InputError(
    'invalid_input',
    `${operation} needs the scope ${scope}, but the token provider's scopes are: ${scopes.join(', ')}`,
    { field: 'tokens', limit: `scopes including ${scope}` },
  );
}
