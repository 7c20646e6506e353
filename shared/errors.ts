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

/** Prefix of the brands: `Symbol.for` keys, the same symbol in every copy of the package a process loads. */
const BRAND_PREFIX = 'n8n-nodes-vision-streaming.';

/** The brand of one error class: a registered symbol, so two copies of the package agree on it. */
export function errorBrand(className: string): symbol {
  return Symbol.for(`${BRAND_PREFIX}${className}`);
}

/** What every error of the package carries besides its code and message; subclasses add their own fields. */
export interface ClientErrorDetails {
  /** Whether repeating the same operation later could succeed (default false, unless the class says otherwise). */
  retryable?: boolean;
  /** HTTP status, when a response arrived. */
  status?: number;
}

/**
 * Base of every error the package throws on purpose; `code` and `retryable` are always set. Every
 * class takes `(code, message, details)`. `instanceof` also holds for an error of another copy of
 * the package (two versions in one n8n or Node-RED process): each instance carries the brand of its
 * class and of every parent class, and a failed prototype check falls back to the brand.
 */
export class ClientError extends Error {
  /** The brand of this class; each subclass declares its own. */
  static readonly brand: symbol = errorBrand('ClientError');

  /** The prototype check, then the brand: true for an instance of this class from any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[this.brand] === true;
  }

  override readonly name: string = 'ClientError';
  readonly code: string;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(code: string, message: string, details: ClientErrorDetails = {}) {
    super(message);
    this.code = code;
    this.retryable = details.retryable ?? false;
    if (details.status !== undefined) this.status = details.status;
    // Not enumerable: the brands stay out of spreads, equality checks and Object.keys.
    for (let cls: unknown = new.target; typeof cls === 'function' && cls !== Error; cls = Object.getPrototypeOf(cls)) {
      if (Object.hasOwn(cls, 'brand')) Object.defineProperty(this, (cls as typeof ClientError).brand, { value: true });
    }
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, status: this.status };
  }
}

/**
 * The base of an error class with codes of its own and no other fields: its name and brand, its
 * code typed, built as `(code, message, details)`. E.g. `class PeopleError extends codedError<PeopleErrorCode>('PeopleError') {}`.
 */
export function codedError<Code extends string>(className: string) {
  return class extends ClientError {
    static override readonly brand: symbol = errorBrand(className);
    override readonly name: string = className;
    declare readonly code: Code;

    constructor(code: Code, message: string, details: ClientErrorDetails = {}) {
      super(code, message, details);
    }
  };
}

/** Longest service message kept on an error; bodies can be arbitrarily large. */
export const MAX_SERVICE_MESSAGE = 500;

/** Longest error code kept; codes are short words, anything longer is not one. */
const MAX_CODE = 100;

/** Longest error message: room for the service message plus the sentence around it. */
const MAX_MESSAGE = 1000;

/** What ApiError.from builds an ApiError from: the code and the message may be left to it. */
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

/** The details of an ApiError. */
export interface ApiErrorDetails extends ClientErrorDetails {
  /** Name of the client operation that failed, e.g. 'detectFaces'. */
  operation: string;
  /** The service's own message (or the network failure's description). */
  serviceMessage: string;
  /** Wait the server asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/** A request reached (or tried to reach) the service and failed. */
export class ApiError extends ClientError {
  static override readonly brand: symbol = errorBrand('ApiError');

  /** An ApiError whose code defaults to the status (`http_<status>`, or ENETWORK without a response) and whose message defaults to one built from the fields. */
  static from(init: ApiErrorInit): ApiError {
    const serviceMessage = shortenText(init.serviceMessage);
    const code = init.code ?? (init.status === undefined ? 'ENETWORK' : `http_${init.status}`);
    const message = init.message ?? defaultMessage({ ...init, serviceMessage });
    return new ApiError(code, message, { operation: init.operation, status: init.status, serviceMessage, retryable: init.retryable, retryAfterMs: init.retryAfterMs });
  }

  override readonly name: string = 'ApiError';
  declare readonly code: ApiErrorCode;
  readonly serviceMessage: string;
  readonly operation: string;
  /** Wait the server asked for (Retry-After), in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;

  constructor(code: ApiErrorCode, message: string, details: ApiErrorDetails) {
    // Callers build messages from shortened text; the caps are the backstop for one that did not.
    super(shortenText(code, MAX_CODE), shortenText(message, MAX_MESSAGE), { retryable: details.retryable, status: details.status });
    this.serviceMessage = shortenText(details.serviceMessage);
    this.operation = details.operation;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
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

/** The details of an InputError. */
export interface InputErrorDetails {
  /** The offending parameter, e.g. 'image', 'maxResults', 'collectionId'. */
  field: string;
  /** The limit that was broken, in words, e.g. 'less than 4194304 bytes'. */
  limit?: string;
}

/** Input that the client refuses before sending anything. */
export class InputError extends ClientError {
  static override readonly brand: symbol = errorBrand('InputError');

  override readonly name: string = 'InputError';
  declare readonly code: InputErrorCode;
  /** The offending parameter, e.g. 'image', 'maxResults', 'collectionId'. */
  readonly field: string;
  /** The limit that was broken, in words, e.g. 'less than 4194304 bytes'. */
  readonly limit?: string;

  constructor(code: InputErrorCode, message: string, details: InputErrorDetails) {
    super(code, message, { retryable: false });
    this.field = details.field;
    this.limit = details.limit;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, field: this.field, limit: this.limit };
  }
}

/** True for errors this package raises on purpose (as opposed to bugs): every ClientError, of this copy of the package or another. */
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
