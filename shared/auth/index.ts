/** Client-credentials tokens. */
export { TokenSource, type Token, type TokenSourceOptions } from './token-source';
export { VISION_SCOPES, STREAMING_SCOPES } from './scopes';
