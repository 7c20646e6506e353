/**
 * Typed errors of the core client. Neither class keeps request options, headers or the
 * underlying transport error: those can hold a bearer token, an API key or a client secret,
 * and an error object tends to end up in logs and workflow outputs.
 */

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
  code?: string;
  /** Whether repeating the same request later could succeed. */
  retryable: boolean;
  /** A sentence that explains the failure to a person; defaults to one built from the fields. */
  message?: string;
  /** Wait the server asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/** A request reached (or tried to reach) the service and failed. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status?: number;
  readonly serviceMessage: string;
  readonly code?: string;
  readonly retryable: boolean;
  readonly operation: string;
  /** Wait the server asked for (Retry-After), in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;

  constructor(init: ApiErrorInit) {
    const serviceMessage = shortenText(init.serviceMessage);
    // Callers build messages from shortened text; the cap is the backstop for one that did not.
    super(shortenText(init.message ?? defaultMessage({ ...init, serviceMessage }), MAX_MESSAGE));
    this.status = init.status;
    this.serviceMessage = serviceMessage;
    this.code = init.code === undefined ? undefined : shortenText(init.code, MAX_CODE);
    this.retryable = init.retryable;
    this.operation = init.operation;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
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
export class InputError extends Error {
  override readonly name = 'InputError';
  /** The offending parameter, e.g. 'image', 'maxResults', 'collectionId'. */
  readonly field: string;
  /** The limit that was broken, in words, e.g. 'less than 4194304 bytes'. */
  readonly limit?: string;

  constructor(field: string, message: string, limit?: string) {
    super(message);
    this.field = field;
    this.limit = limit;
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, field: this.field, limit: this.limit };
  }
}

/** True for errors this library raises on purpose (as opposed to bugs). */
export function isClientError(err: unknown): err is ApiError | InputError {
  return err instanceof ApiError || err instanceof InputError;
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
