/** HTTP layer: the shared dispatcher, transports, retries, typed errors. */
export { HttpClient, MAX_BODY_BYTES, type HttpClientOptions, type HttpRequest, type RequestBody } from './http-client';
export { HttpCore, type HttpCoreOptions } from './http-core';
export { DEFAULT_RETRY_POLICY, backoffDelay, parseRetryAfter, type RetryPolicy, type Sleep } from './retry';
export { sleep } from './sleep';
export { parseErrorBody, type ServiceFault } from './error-body';
export { defaultDispatcher, createDispatcher, connectionsPerOrigin, DEFAULT_CONNECTIONS_PER_ORIGIN, CONNECTIONS_ENV, type Dispatcher, type DispatcherOptions } from './dispatcher';
export { undiciTransport, type HttpTransport, type TransportRequest, type TransportResponse } from './transport';
export { parseServiceBase, type ServiceBase } from './url';
