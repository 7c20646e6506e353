/** Client-credentials tokens. */
export { TokenSource, type Token, type TokenSourceOptions } from './token-source';
export { acquireTokenSource, type TokenSourceLease } from './shared-sources';
export { VISION_SCOPES, STREAMING_SCOPES } from './scopes';
export type { ClientCredentials, CallerTokenSource } from './client-tokens';
