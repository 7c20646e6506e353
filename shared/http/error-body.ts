import { ApiError, shortenText } from '../errors';
import { parseRetryAfter } from './retry';

/** The service's message and code, whichever of its body shapes carried them. */
export interface ServiceFault {
  message: string;
  code?: string;
}

/** Statuses after which the same request may well succeed. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Reads an error body. The service answers `{message}` (gateway errors), `{error:{code,message}}`
 * (application errors), OAuth-style `{error, error_description}` from the token endpoint, and a
 * plain-text 413 when the body exceeds 10485760 bytes.
 */
export function parseErrorBody(text: string, status: number): ServiceFault {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(trimmed) as Record<string, unknown>;
      const nested = body.error;
      if (nested && typeof nested === 'object') {
        const inner = nested as Record<string, unknown>;
        return { message: asText(inner.message) ?? asText(body.message) ?? `HTTP ${status}`, code: asText(inner.code) };
      }
      if (typeof nested === 'string') {
        return { message: asText(body.error_description) ?? asText(body.message) ?? nested, code: nested };
      }
      const message = asText(body.message) ?? asText(body.Message);
      if (message !== undefined) return { message, code: asText(body.code) };
    } catch {
      // Not JSON after all: fall through and keep the raw text.
    }
  }
  return { message: trimmed === '' ? `HTTP ${status}` : trimmed };
}

/** True when a 429 means the quota is spent (not worth retrying) rather than throttling. */
export function isQuotaExhausted(status: number, fault: ServiceFault): boolean {
  return status === 429 && /limit\s*exceeded|quota/i.test(`${fault.message} ${fault.code ?? ''}`);
}

/** Extra context for responseError. */
export interface ResponseErrorContext {
  /** Appended to the message, e.g. which id was not found. */
  hint?: string;
  /** The response's Retry-After header. */
  retryAfter?: string | string[];
}

/** Turns an HTTP error response into the library's typed error. */
export function responseError(operation: string, status: number, bodyText: string, context: ResponseErrorContext = {}): ApiError {
  const fault = parseErrorBody(bodyText, status);
  const retryAfterMs = parseRetryAfter(context.retryAfter);
  const hint = context.hint;
  // An error page can be hundreds of kilobytes; the message quotes only its start.
  const quoted = shortenText(fault.message);
  if (isQuotaExhausted(status, fault)) {
    return ApiError.from({
      operation,
      status,
      serviceMessage: fault.message,
      code: fault.code ?? 'quota_exceeded',
      retryable: false,
      retryAfterMs,
      message: `${operation} failed: HTTP 429: quota exhausted (${quoted}); retrying will not help until the quota resets`,
    });
  }
  const retryable = RETRYABLE_STATUSES.has(status);
  const suffix = hint ? ` (${hint})` : '';
  return ApiError.from({
    operation,
    status,
    serviceMessage: fault.message,
    code: fault.code,
    retryable,
    retryAfterMs,
    message: `${operation} failed: HTTP ${status}${fault.code ? ` [${shortenText(fault.code, 100)}]` : ''}: ${quoted}${suffix}`,
  });
}

/** Error codes of transport failures after which a new attempt may succeed. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  // Out of file descriptors (this process's, or the system's): a socket frees one soon.
  'EMFILE',
  'ENFILE',
]);

/** Undici marks each of its own errors with this symbol (any copy of undici, Node's own fetch included). */
const UNDICI_ERROR = Symbol.for('undici.error.UND_ERR');

/** True for an error undici raised itself: its code says what undici saw, a socket error in its cause says more. */
function isUndiciError(err: object): boolean {
  return Reflect.get(err, UNDICI_ERROR) === true;
}

/** Finds the most specific error code on a transport error (undici nests the socket error in `cause`). */
export function transportCode(err: unknown): string | undefined {
  let current: unknown = err;
  let fallback: string | undefined;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (!isUndiciError(current)) return code;
      fallback ??= code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return fallback;
}

/**
 * Turns a transport failure into the typed error. Only the code and the text of the failure are
 * kept: undici's errors can reference the request (and so its Authorization header).
 */
export function networkError(operation: string, err: unknown, target: string): ApiError {
  const code = transportCode(err) ?? 'ENETWORK';
  const timedOut = /TIMEOUT|ETIMEDOUT|AbortError|TimeoutError/i.test(code) || isTimeoutAbort(err);
  const text = shortenText(err instanceof Error ? err.message : String(err));
  return ApiError.from({
    operation,
    serviceMessage: text,
    code: timedOut && !code.includes('TIMEOUT') ? 'ETIMEDOUT' : code,
    retryable: timedOut || RETRYABLE_NETWORK_CODES.has(code),
    message: `${operation} failed: no response from ${target} (${code}${timedOut ? ', timed out' : ''}): ${text}`,
  });
}

/** True when a network error is a connection that never opened, so the request never reached the server. */
export function neverSent(err: ApiError): boolean {
  return err.status === undefined && (err.code === 'ECONNREFUSED' || err.code === 'UND_ERR_CONNECT_TIMEOUT' || err.code === 'EMFILE' || err.code === 'ENFILE');
}

function isTimeoutAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

function asText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
