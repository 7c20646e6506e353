import { checkScope, type Token, type TokenProvider } from '../auth/provider';
import { ApiError, InputError, isClientError, shortenText } from '../errors';
import { neverSent, parseErrorBody, responseError } from './error-body';
import { resolveRetryPolicy, type RetryPolicy, type Sleep } from './retry';
import { withRetries } from './retry-loop';
import { send } from './send';
import type { HttpTransport } from './transport';
import { parseServiceBase, type ServiceBase } from './url';

/** Largest request body the service accepts; above it the gateway answers a plain-text 413. */
export const MAX_BODY_BYTES = 10_485_760;

/** A request body: bytes, text, or a multipart form (serialised once, before the transport sees it). */
export type RequestBody = Uint8Array | string | FormData;

/** How to reach one service, and the parts that do the I/O. */
export interface HttpCoreOptions {
  /** Base address of the service; request paths start with `/v1/`. */
  baseUrl: string;
  /** Name of the option the base address came from, for errors (default 'baseUrl'). */
  baseUrlField?: string;
  /** Where tokens come from; may be left out only with a `transport` that authorises requests itself. */
  tokens?: TokenProvider;
  /** Performs each exchange (not the retries, parsing or error mapping): undici's, or a host's. */
  transport: HttpTransport;
  /** True when `transport` is a host's: it then gets an exact deadline, and may authorise requests itself. */
  hostTransport?: boolean;
  /** How to wait between attempts. */
  sleep: Sleep;
  /** Send `x-api-key` (the vision service wants it; streaming does not). */
  sendApiKey: boolean;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout for the response headers and for each body chunk (default 60 s). */
  timeoutMs?: number;
  /** A token source built for this client alone: closed by close(), and at once when these options are refused. */
  ownedTokens?: { close(): Promise<void> };
}

/** What an API class passes through to its HTTP core, as it got it: everything but the address and the API key. */
export type HttpCoreParts = Pick<HttpCoreOptions, 'transport' | 'hostTransport' | 'tokens' | 'sleep' | 'retry' | 'timeoutMs' | 'ownedTokens'>;

/** One call of the service. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Starts with `/v1/`; path segments taken from users must already be encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is (set content-type in `headers`, FormData sets its own). */
  body?: RequestBody;
  headers?: Record<string, string>;
  /** Client operation name, used in errors. */
  operation: string;
  /** The token scope the call needs; refused before sending when the provider's scopes lack it. */
  scope?: string;
  /** 'json' (default) parses the response, 'empty' discards it, 'text' returns it. */
  expect?: 'json' | 'empty' | 'text';
  /**
   * false for calls that must not run twice (create a collection, add a face): they are retried
   * only when the service surely did not act on them. Default true.
   */
  idempotent?: boolean;
  /**
   * false where a 429 from this endpoint is a hard limit rather than throttling (room creation):
   * repeating it cannot help. Default true.
   */
  retryTooManyRequests?: boolean;
  /** Added to the message of a 404, e.g. which id was unknown. */
  notFoundHint?: string;
  /** Aborting stops the attempt and any backoff at once: ApiError code 'ABORTED'. */
  signal?: AbortSignal;
}

/**
 * Authorised requests to one service with retries. Detection and comparison POSTs are pure
 * functions of their input, so repeating one after a 429/5xx or a reset is safe and is done.
 */
export class HttpCore {
  readonly #base: ServiceBase;
  readonly #tokens?: TokenProvider;
  readonly #transport: HttpTransport;
  readonly #foreign: boolean;
  readonly #sleep: Sleep;
  readonly #sendApiKey: boolean;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  /** Aborted by close(): stops retry loops and refuses new requests. */
  readonly #closing = new AbortController();
  readonly #ownedTokens?: { close(): Promise<void> };
  #closed?: Promise<void>;

  constructor(options: HttpCoreOptions) {
    try {
      this.#base = parseServiceBase(options.baseUrl, options.baseUrlField ?? 'baseUrl');
      if (typeof options.transport !== 'function') {
        throw new InputError('invalid_input', 'transport must be a function (request) => Promise<response>', { field: 'transport', limit: 'HttpTransport' });
      }
      if (options.tokens === undefined && options.hostTransport !== true) {
        throw new InputError('invalid_input', 'a token provider is required unless a transport that authorises requests is given', { field: 'tokens', limit: 'TokenProvider' });
      }
      this.#tokens = options.tokens;
      this.#foreign = options.hostTransport === true;
      this.#transport = options.transport;
      this.#sleep = options.sleep;
      this.#sendApiKey = options.sendApiKey;
      this.#retry = resolveRetryPolicy(options.retry);
      const timeoutMs = options.timeoutMs ?? 60_000;
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new InputError('invalid_input', 'timeoutMs must be a number > 0', { field: 'timeoutMs', limit: '> 0' });
      this.#timeoutMs = timeoutMs;
    } catch (err) {
      void options.ownedTokens?.close();
      throw err;
    }
    this.#ownedTokens = options.ownedTokens;
  }

  /** The policy in force (defaults filled in). */
  get retryPolicy(): RetryPolicy {
    return { ...this.#retry };
  }

  /** Throws an InputError when the token provider's scopes do not cover `scope`. */
  checkScope(scope: string, operation: string): void {
    checkScope(this.#tokens, scope, operation);
  }

  /** Sends the request, retrying per policy, and returns the parsed response. */
  async request<T>(req: HttpRequest): Promise<T> {
    checkScope(this.#tokens, req.scope, req.operation);
    const prepared = await prepareBody(req);
    // Renewing after a 401 is not a retry, and happens once per request, whatever the attempt.
    const renewal = { done: false };
    const loop = {
      operation: req.operation,
      policy: this.#retry,
      sleep: this.#sleep,
      signal: req.signal,
      closing: this.#closing.signal,
      mayRetry: (failure: ApiError) => this.#mayRetry(req, failure),
    };
    return withRetries(loop, (attempt) => this.#attempt<T>(req, prepared, attempt, renewal));
  }

  /**
   * Stops retrying and refuses new requests (ApiError code 'closed'), then closes the token source
   * built for this client. A caller's token provider and the dispatcher stay open: they are shared
   * or the caller's. Idempotent.
   */
  close(): Promise<void> {
    this.#closing.abort();
    this.#closed ??= this.#ownedTokens?.close() ?? Promise.resolve();
    return this.#closed;
  }

  async #attempt<T>(req: HttpRequest, prepared: PreparedBody, attempt: number, renewal: { done: boolean }): Promise<T> {
    for (;;) {
      const headers: Record<string, string> = { ...prepared.headers };
      // Without a provider the host's transport authorises the request itself.
      const token = this.#tokens ? await providerToken(this.#tokens, req.signal) : undefined;
      if (token) {
        headers.authorization = `Bearer ${token.accessToken}`;
        if (this.#sendApiKey && token.apiKey !== undefined) headers['x-api-key'] = token.apiKey;
      }
      const received = await send({
        transport: this.#transport,
        foreign: this.#foreign,
        base: this.#base,
        method: req.method,
        path: req.path,
        query: req.query,
        headers,
        body: prepared.body,
        timeoutMs: this.#timeoutMs,
        operation: req.operation,
        signal: req.signal,
      });
      if (received.status >= 200 && received.status < 300) return parseSuccess<T>(req, received.status, received.text);
      if (received.status === 404 && attempt > 0 && req.method === 'DELETE') {
        // An earlier attempt failed with a 5xx or a reset after the service may have deleted the
        // resource; "gone" is then the outcome the caller asked for.
        return parseSuccess<T>({ ...req, expect: 'empty' }, received.status, '');
      }
      if (received.status === 401 && !renewal.done && token && this.#tokens) {
        // The token may have been revoked or expired early: renew once and send again.
        renewal.done = true;
        this.#tokens.invalidate(token.accessToken);
        continue;
      }
      throw responseError(req.operation, received.status, received.text, {
        hint: hintFor(received.status, req, renewal.done),
        retryAfter: received.headers['retry-after'],
      });
    }
  }

  #mayRetry(req: HttpRequest, failure: ApiError): boolean {
    // A token failure has been retried by the token source already.
    if (failure.operation !== req.operation) return false;
    if (failure.status === 429 && req.retryTooManyRequests === false) return false;
    if (req.idempotent !== false) return true;
    // Throttling (429 Too Many Requests; a spent quota is not retryable at all) and a refused
    // connection mean the service did not act.
    return failure.status === 429 || neverSent(failure);
  }
}

/** A token from the provider; a host provider's own failure becomes an ApiError, so no plain Error escapes. */
async function providerToken(tokens: TokenProvider, signal: AbortSignal | undefined): Promise<Token> {
  try {
    return await tokens.getToken(signal);
  } catch (err) {
    if (isClientError(err)) throw err;
    const text = shortenText(err instanceof Error ? err.message : String(err), 200);
    throw ApiError.from({
      operation: 'getToken',
      serviceMessage: text,
      code: 'token_provider_failed',
      retryable: false,
      message: `getToken failed: the token provider threw: ${text}`,
    });
  }
}

interface PreparedBody {
  body?: Buffer | string;
  headers: Record<string, string>;
}

/** Serialises the body once; every attempt (and every transport) then sends the same bytes. */
async function prepareBody(req: HttpRequest): Promise<PreparedBody> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  let body: Buffer | string | undefined;
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers['content-type'] ??= 'application/json';
  } else if (typeof req.body === 'string') {
    body = req.body;
  } else if (req.body instanceof Uint8Array) {
    body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
  } else if (req.body !== undefined) {
    // The built-in Response writes the multipart framing and names the boundary in its content-type.
    const encoded = new Response(req.body);
    body = Buffer.from(await encoded.arrayBuffer());
    headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
  }
  const size = typeof body === 'string' ? Buffer.byteLength(body) : (body?.byteLength ?? 0);
  if (size > MAX_BODY_BYTES) {
    throw new InputError('invalid_input', `${req.operation}: request body is ${size} bytes; the service refuses bodies above ${MAX_BODY_BYTES} bytes`, { field: 'body', limit: `${MAX_BODY_BYTES} bytes` });
  }
  return { body, headers };
}

function parseSuccess<T>(req: HttpRequest, status: number, text: string): T {
  const expect = req.expect ?? 'json';
  if (expect === 'empty') return undefined as T;
  if (expect === 'text') return text as T;
  if (text.trim() === '') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw ApiError.from({
      operation: req.operation,
      status,
      serviceMessage: parseErrorBody(text, status).message,
      code: 'invalid_response',
      retryable: false,
      message: `${req.operation} failed: HTTP ${status} with a body that is not JSON`,
    });
  }
}

function hintFor(status: number, req: HttpRequest, renewed: boolean): string | undefined {
  if (status === 401) return renewed ? 'the access token was refused even after renewing it' : 'the access token was refused';
  if (status === 403) return 'the API key was refused, or the client lacks the scope for this call';
  if (status === 404) return req.notFoundHint;
  if (status === 413) return `request body too large; images must be less than 4 MiB and bodies at most ${MAX_BODY_BYTES} bytes`;
  if (status === 415) return 'content type not supported; images must be JPEG or PNG';
  return undefined;
}
