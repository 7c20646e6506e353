import type { IncomingHttpHeaders } from 'node:http';
import type { FormData, Pool } from 'undici';
import { ApiError } from '../errors';
import { networkError, transportCode } from './error-body';
import { abortedError } from './retry-loop';
import type { ServiceBase } from './url';

/** A body undici can send again on a retry (FormData is re-serialised for every attempt). */
export type RequestBody = Uint8Array | string | FormData;

/** One HTTP exchange, already authorised. */
export interface Exchange {
  pool: Pool;
  base: ServiceBase;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  headers: Record<string, string>;
  body?: RequestBody;
  timeoutMs: number;
  operation: string;
  signal?: AbortSignal;
}

/** Status, headers and the whole (small) body of a response. */
export interface Received {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Performs one attempt. Bodies of this API are small JSON documents, so the body is read whole;
 * every transport failure becomes an ApiError without status.
 */
export async function send(exchange: Exchange): Promise<Received> {
  // undici's headers/body timeouts tick at about one second, which is fine for the usual
  // timeouts of many seconds; a short timeout gets an exact deadline (a timer and an abort signal
  // per request, a cost not worth paying on the common path).
  const deadline = exchange.timeoutMs < PRECISE_TIMEOUT_BELOW_MS ? AbortSignal.timeout(exchange.timeoutMs) : undefined;
  const signal = deadline && exchange.signal ? AbortSignal.any([exchange.signal, deadline]) : (deadline ?? exchange.signal);
  try {
    const response = await exchange.pool.request({
      method: exchange.method,
      path: exchange.base.prefix + exchange.path,
      query: exchange.query ? definedOnly(exchange.query) : undefined,
      headers: exchange.headers,
      body: exchange.body,
      headersTimeout: exchange.timeoutMs,
      bodyTimeout: exchange.timeoutMs,
      signal,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  } catch (err) {
    if (exchange.signal?.aborted) {
      throw abortedError(exchange.operation);
    }
    if (deadline?.aborted || /UND_ERR_(HEADERS|BODY)_TIMEOUT/.test(transportCode(err) ?? '')) {
      throw new ApiError({
        operation: exchange.operation,
        serviceMessage: `no response within ${exchange.timeoutMs} ms`,
        code: 'ETIMEDOUT',
        retryable: true,
        message: `${exchange.operation} failed: no response from ${exchange.base.origin} within ${exchange.timeoutMs} ms (ETIMEDOUT)`,
      });
    }
    throw networkError(exchange.operation, err, exchange.base.origin);
  }
}

/** Timeouts shorter than this get an exact deadline of their own. */
const PRECISE_TIMEOUT_BELOW_MS = 5_000;

function definedOnly(query: Record<string, string | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) out[key] = String(value);
  }
  return out;
}
