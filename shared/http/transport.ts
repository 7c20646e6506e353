import type { Dispatcher } from 'undici';

/** One HTTP exchange as a transport sees it: authorised, body serialised, URL complete. */
export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Multipart bodies arrive already serialised, their content-type in `headers`. */
  body?: Buffer | string;
  /** Per-attempt limit for the response headers and for each body chunk. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A response read whole (the bodies of these APIs are small JSON documents). */
export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Performs one exchange. A host may supply its own (n8n's request helper, which runs its
 * credential logic); validation, retries, parsing and error mapping stay in the core. It resolves
 * for every HTTP status and rejects only when no response arrived.
 */
export type HttpTransport = (req: TransportRequest) => Promise<TransportResponse>;

/** The built-in transport: one request through an undici dispatcher. */
export function undiciTransport(dispatcher: Dispatcher): HttpTransport {
  return async (req) => {
    const { origin, path } = splitUrl(req.url);
    const response = await dispatcher.request({
      origin,
      path,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal: req.signal,
    });
    const body = await response.body.text();
    return { status: response.statusCode, headers: response.headers, body };
  };
}

/**
 * Origin and path of an absolute http(s) address, without building a URL object: the clients
 * hand over addresses they assembled themselves, so the first `/` after the authority splits it.
 */
function splitUrl(url: string): { origin: string; path: string } {
  const authority = url.indexOf('//') + 2;
  const slash = url.indexOf('/', authority);
  const query = url.indexOf('?', authority);
  if (authority < 2 || slash === -1 || (query !== -1 && query < slash)) {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: parsed.pathname + parsed.search };
  }
  return { origin: url.slice(0, slash), path: url.slice(slash) };
}
