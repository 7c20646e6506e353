import type { Dispatcher } from 'undici';
import { defaultDispatcher } from '../http/dispatcher';
import { sleep } from '../http/sleep';
import { undiciTransport } from '../http/transport';
import { requestTokenOver, type IssuedToken, type RequestTokenOptions } from './token-request';

export { checkScopes, fetchToken, requireText, type IssuedToken, type TokenRequest } from './token-request';

/** Options of requestToken: those of every token request, and the undici pool to send through. */
export interface UndiciTokenOptions extends RequestTokenOptions {
  dispatcher?: Dispatcher;
}

/** Fetches one token over undici, with retries, and caches nothing (for hosts that store the token themselves). */
export function requestToken(options: UndiciTokenOptions): Promise<IssuedToken> {
  return requestTokenOver({ transport: undiciTransport(options?.dispatcher ?? defaultDispatcher()), sleep }, options);
}
