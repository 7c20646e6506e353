/**
 * Typed errors of the package. Every error a public call throws on purpose extends ClientError.
 * None of them keeps request options, headers or the underlying transport error: those can hold a
 * bearer token, an API key or a client secret, and an error object tends to end up in logs and
 * workflow outputs.
 */

/** The code of every InputError: input refused before anything was sent. */
export type InputErrorCode = 'invalid_input';

/** Codes the client gives an ApiError itself (the quota, a reply it cannot read, a call it ended). */
export const API_CLIENT_CODES = ['invalid_response', 'quota_exceeded', 'room_limit', 'token_provider_failed', 'closed', 'ABORTED', 'ETIMEDOUT', 'ENETWORK'] as const;

/** A code the client gives an ApiError itself. */
export type ApiClientCode = (typeof API_CLIENT_CODES)[number];

/**
 * A code another party chose: the transport's (ECONNREFUSED, UND_ERR_SOCKET, ...) or the service's
 * (its body's code, or OAuth's error). The specs list none, so it stays a string.
 */
export type ForeignCode = string & Record<never, never>;

/** The code of an ApiError: the client's own, `http_<status>` for an answer that named none, or the transport's or the service's. */
export type ApiErrorCode = ApiClientCode | `http_${number}` | ForeignCode;

/** What every error of the package is built from. */
export interface ClientErrorInit {
  /** Short machine-readable code, e.g. 'invalid_input', 'ABORTED', 'RAPI-INVALID-TOKEN'. */
  code: string;
  /** Whether repeating the same operation later could succeed (default false). */
  retryable?: boolean;
  /** HTTP status, when a response arrived. */
  status?: number;
}

/** Base of every error the package throws on purpose; `code` and `retryable` are always set. */
export class ClientError extends Error {
  override readonly name: string = 'ClientError';
  readonly code: string;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(message: string, init: ClientErrorInit) {
    super(message);
    this.code = init.code;
    this.retryable = init.retryable ?? false;
    if (init.status !== undefined) this.status = init.status;
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, status: this.status };
  }
}

/** Longest service message kept on an error; bodies can be arbitrarily large. */
export const MAX_SERVICE_MESSAGE = 500;

/** Longest error code kept; codes are short words, anything longer is not one. */
const MAX_CODE = 100;

/** Longest error message: room for the service message plus the sentence around it. */
const MAX_MESSAGE = 1000;

/** What an ApiError is built from. */
export interface ApiErrorInit {
  /** Name of the client operation that failed, e.g. 'detectFaces'. */
  operation: string;
  /** HTTP status; undefined when no response arrived (network failure, timeout). */
  status?: number;
  /** The service's own message (or the network failure's description). */
  serviceMessage: string;
  /** The service's error code, or a client-side code such as 'quota_exceeded', 'ECONNREFUSED'. */
  code?: ApiErrorCode;
  /** Whether repeating the same request later could succeed. */
  retryable: boolean;
  /** A sentence that explains the failure to a person; defaults to one built from the fields. */
  message?: string;
  /** Wait the server asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/** A request reached (or tried to reach) the service and failed. */
export class ApiError extends ClientError {
  override readonly name: string = 'ApiError';
  declare readonly code: ApiErrorCode;
  readonly serviceMessage: string;
  readonly operation: string;
  /** Wait the server asked for (Retry-After), in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;

  constructor(init: ApiErrorInit) {
    const serviceMessage = shortenText(init.serviceMessage);
    // Callers build messages from shortened text; the cap is the backstop for one that did not.
    // Without a code of its own, the status (or the lack of a response) is the code.
    const code = init.code === undefined ? (init.status === undefined ? 'ENETWORK' : `http_${init.status}`) : shortenText(init.code, MAX_CODE);
    super(shortenText(init.message ?? defaultMessage({ ...init, serviceMessage }), MAX_MESSAGE), { code, retryable: init.retryable, status: init.status });
    this.serviceMessage = serviceMessage;
    this.operation = init.operation;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      operation: this.operation,
      status: this.status,
      serviceMessage: this.serviceMessage,
      code: this.code,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

/** Input that the client refuses before sending anything. */
export class InputError extends ClientError {
  override readonly name: string = 'InputError';
  declare readonly code: InputErrorCode;
  /** The offending parameter, e.g. 'image', 'maxResults', 'collectionId'. */
  readonly field: string;
  /** The limit that was broken, in words, e.g. 'less than 4194304 bytes'. */
  readonly limit?: string;

  constructor(field: string, message: string, limit?: string) {
    super(message, { code: 'invalid_input' satisfies InputErrorCode, retryable: false });
    this.field = field;
    this.limit = limit;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, field: this.field, limit: this.limit };
  }
}

/** True for errors this package raises on purpose (as opposed to bugs): every ClientError. */
export function isClientError(err: unknown): err is ClientError {
  return err instanceof ClientError;
}

/** True for the error of a call its caller aborted (ApiError code 'ABORTED'). */
export function isAbortError(err: unknown): err is ApiError {
  return err instanceof ApiError && err.code === 'ABORTED';
}

function defaultMessage(init: ApiErrorInit): string {
  const where = init.status === undefined ? 'no response' : `HTTP ${init.status}`;
  const code = init.code ? ` [${init.code}]` : '';
  return `${init.operation} failed: ${where}${code}: ${init.serviceMessage}`;
}

/** Text from a service, on one line and cut to `max` characters (an ellipsis marks the cut). */
export function shortenText(text: string, max = MAX_SERVICE_MESSAGE): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
