/** Tokens: the provider interface, the built-in client-credentials source, one-shot requests. */
export type { Token, TokenProvider } from './provider';
export { TokenSource, type TokenSourceOptions } from './token-source';
export { acquireTokenSource, type TokenSourceLease } from './shared-sources';
export { requestToken, type UndiciTokenOptions as RequestTokenOptions, type IssuedToken } from './request-token';
export { requestTokenOver, type TokenRequestParts } from './token-request';
export { VISION_SCOPES, STREAMING_SCOPES, ALL_SCOPES } from './scopes';
export type { ClientCredentials, CallerTokenSource, HostTransport } from './client-tokens';
