/** HTTP layer: the shared dispatcher, transports, retries, typed errors. */
export { HttpClient, MAX_BODY_BYTES, type HttpClientOptions, type HttpRequest, type RequestBody } from './http-client';
export { DEFAULT_RETRY_POLICY, backoffDelay, parseRetryAfter, sleep, type RetryPolicy } from './retry';
export { parseErrorBody, type ServiceFault } from './error-body';
export { defaultDispatcher, type Dispatcher } from './dispatcher';
export { undiciTransport, type HttpTransport, type TransportRequest, type TransportResponse } from './transport';
export { parseServiceBase, type ServiceBase } from './url';
