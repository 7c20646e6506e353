/** HTTP layer: per-origin pools, retries, typed errors. */
export { HttpClient, MAX_BODY_BYTES, type HttpClientOptions, type HttpRequest } from './http-client';
export { DEFAULT_RETRY_POLICY, backoffDelay, parseRetryAfter, type RetryPolicy } from './retry';
export { parseErrorBody, type ServiceFault } from './error-body';
export { acquireDispatcher, type DispatcherLease } from './dispatchers';
export { parseServiceBase, type ServiceBase } from './url';
export type { RequestBody } from './send';
