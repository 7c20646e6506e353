/** What every entry point exports: errors, tokens and the HTTP seams. Loads neither werift nor the decoders. */
export {
  ClientError,
  ApiError,
  InputError,
  isClientError,
  isAbortError,
  API_CLIENT_CODES,
  type ClientErrorDetails,
  type ApiErrorDetails,
  type InputErrorDetails,
  type ApiErrorInit,
  type InputErrorCode,
  type ApiErrorCode,
  type ApiClientCode,
  type ForeignCode,
} from './errors';
export {
  TokenSource,
  acquireTokenSource,
  requestToken,
  VISION_SCOPES,
  STREAMING_SCOPES,
  ALL_SCOPES,
  type Token,
  type TokenProvider,
  type TokenSourceOptions,
  type TokenSourceLease,
  type RequestTokenOptions,
  type IssuedToken,
  type ClientCredentials,
  type CallerTokenSource,
  type HostTransport,
} from './auth';
export { defaultDispatcher, createDispatcher, DEFAULT_CONNECTIONS_PER_ORIGIN, type Dispatcher, type DispatcherOptions } from './http/dispatcher';
export type { HttpTransport, TransportRequest, TransportResponse } from './http/transport';
export type { RetryPolicy } from './http/retry';
export type { CallOptions } from './util/call-options';
