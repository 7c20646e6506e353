import { ApiError } from '../errors';
import { raceAbort } from '../util/abort';
import { networkError, transportCode } from './error-body';
import { abortedError } from './retry-loop';
import type { HttpTransport, TransportResponse } from './transport';
import type { ServiceBase } from './url';

/** One HTTP exchange, already authorised, its body serialised. */
export interface Exchange {
  transport: HttpTransport;
  /** True for a host's transport: it gets an exact deadline, whatever it does with timeoutMs. */
  foreign?: boolean;
  base: ServiceBase;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  headers: Record<string, string>;
  body?: Buffer | string;
  timeoutMs: number;
  operation: string;
  signal?: AbortSignal;
}

/** Status, headers and the whole (small) body of a response. */
export interface Received {
  status: number;
  headers: TransportResponse['headers'];
  text: string;
}

/**
 * Performs one attempt. Every transport failure becomes an ApiError without status; the caller's
 * abort rejects at once with ApiError 'ABORTED', even when a host transport ignores the signal.
 */
export async function send(exchange: Exchange): Promise<Received> {
  // undici's headers/body timeouts tick at about one second, which is fine for the usual
  // timeouts of many seconds; a short timeout (or a host transport) gets an exact deadline.
  const precise = exchange.foreign === true || exchange.timeoutMs < PRECISE_TIMEOUT_BELOW_MS;
  const deadline = precise ? AbortSignal.timeout(exchange.timeoutMs) : undefined;
  const signal = deadline && exchange.signal ? AbortSignal.any([exchange.signal, deadline]) : (deadline ?? exchange.signal);
  let response: TransportResponse;
  try {
    const work = exchange.transport({
      method: exchange.method,
      url: requestUrl(exchange),
      headers: exchange.headers,
      body: exchange.body,
      timeoutMs: exchange.timeoutMs,
      signal,
    });
    // Mapped below: which signal fired decides between ABORTED and ETIMEDOUT.
    response = await raceAbort(work, signal, () => new Error('aborted'));
  } catch (err) {
    if (exchange.signal?.aborted) throw abortedError(exchange.operation);
    if (deadline?.aborted || /UND_ERR_(HEADERS|BODY)_TIMEOUT/.test(transportCode(err) ?? '')) {
      throw ApiError.from({
        operation: exchange.operation,
        serviceMessage: `no response within ${exchange.timeoutMs} ms`,
        code: 'ETIMEDOUT',
        retryable: true,
        message: `${exchange.operation} failed: no response from ${exchange.base.origin} within ${exchange.timeoutMs} ms (ETIMEDOUT)`,
      });
    }
    throw networkError(exchange.operation, err, exchange.base.origin);
  }
  if (!response || typeof response !== 'object' || !Number.isInteger(response.status)) {
    throw ApiError.from({
      operation: exchange.operation,
      serviceMessage: 'the transport answered without an HTTP status',
      code: 'invalid_response',
      retryable: false,
      message: `${exchange.operation} failed: the HTTP transport answered without an HTTP status`,
    });
  }
  const body = response.body as unknown;
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
  return { status: response.status, headers: response.headers ?? {}, text };
}

/** Timeouts shorter than this get an exact deadline of their own. */
const PRECISE_TIMEOUT_BELOW_MS = 5_000;

/**
 * The request's address. Paths are built by the clients from fixed segments and encoded ids, so
 * a concatenation is a valid URL; parsing it into a URL object on every call cost more than the
 * rest of the client's own work.
 */
function requestUrl(exchange: Exchange): string {
  const url = exchange.base.origin + exchange.base.prefix + exchange.path;
  if (exchange.query === undefined) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(exchange.query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.toString();
  return search === '' ? url : `${url}?${search}`;
}
