import type { Dispatcher } from 'undici';
import { InputError } from '../errors';
import { processIo } from '../http/http-client';
import type { HttpCoreParts } from '../http/http-core';
import type { RetryPolicy } from '../http/retry';
import type { HttpTransport } from '../http/transport';
import { isTokenProvider, type TokenProvider } from './provider';
import { TokenSource } from './token-source';

/** Client credentials from which a service client builds (and owns) its token source. */
export interface ClientCredentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Tokens from a provider owned by the caller: a service client uses it but never closes it. */
export interface CallerTokenSource {
  tokens: TokenProvider;
}

/** A host's transport; without `tokens` it authorises every request itself (n8n's credentials). */
export interface HostTransport {
  transport: HttpTransport;
  tokens?: TokenProvider;
}

/** Settings every service client takes, whichever way it is authorised. */
export interface ServiceClientOptions {
  /** undici dispatcher for API calls and tokens (default: defaultDispatcher()); never closed by the client. */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout. */
  timeoutMs?: number;
}

/** A client's options: its own settings with credentials, a caller's token provider, or a host transport. */
export type AuthorisedBy<Common> = (Common & ClientCredentials) | (Common & CallerTokenSource) | (Common & HostTransport);

/** The three ways a service client gets authorised, plus the settings every client shares. */
export type ClientAuthOptions = (ClientCredentials | CallerTokenSource | HostTransport) & {
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
};

/** The token provider of a service client, and the source it must close when it built one. */
export interface ClientTokens {
  tokens?: TokenProvider;
  owned?: TokenSource;
  transport?: HttpTransport;
}

/** Picks the caller's provider or transport, or builds a token source for `scopes` from the credentials. */
export function clientTokens(options: ClientAuthOptions, scopes: readonly string[]): ClientTokens {
  const o = options as Partial<ClientCredentials & CallerTokenSource & HostTransport>;
  if (o.tokens !== undefined && !isTokenProvider(o.tokens)) {
    throw new InputError('invalid_input', 'tokens must be a token provider (getToken and invalidate methods)', { field: 'tokens', limit: 'TokenProvider' });
  }
  if (o.transport !== undefined) {
    if (typeof o.transport !== 'function') throw new InputError('invalid_input', 'transport must be a function (request) => Promise<response>', { field: 'transport', limit: 'HttpTransport' });
    return { tokens: o.tokens, transport: o.transport };
  }
  if (o.tokens !== undefined) return { tokens: o.tokens };
  const owned = new TokenSource({
    authUrl: o.authUrl as string,
    clientId: o.clientId as string,
    clientSecret: o.clientSecret as string,
    scopes,
    retry: options.retry,
    dispatcher: options.dispatcher,
  });
  return { tokens: owned, owned };
}

/**
 * The HTTP parts a service client builds from its options: the checked options object, its tokens
 * (built for `scopes` and owned, or the caller's), the process's I/O, retries and timeout.
 */
export function serviceCoreParts(client: string, options: ServiceClientOptions & ClientAuthOptions, scopes: readonly string[]): HttpCoreParts {
  if (!options || typeof options !== 'object') throw new InputError('invalid_input', `${client} needs options`, { field: 'options', limit: 'object' });
  const { tokens, owned, transport } = clientTokens(options, scopes);
  return { tokens, ...processIo(transport, options.dispatcher), retry: options.retry, timeoutMs: options.timeoutMs, ownedTokens: owned };
}
