import type { Pool } from 'undici';
import { ApiError, InputError } from '../errors';
import { usePool, type DispatcherLease } from '../http/dispatchers';
import { responseError } from '../http/error-body';
import { resolveRetryPolicy, type RetryPolicy } from '../http/retry';
import { closedError, withRetries } from '../http/retry-loop';
import { send } from '../http/send';
import { parseServiceBase, type ServiceBase } from '../http/url';

/** An access token (and, for vision, its API key) with the moment it stops being valid. */
export interface Token {
  accessToken: string;
  apiKey?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** How to obtain tokens for one client (client id + secret + scopes). */
export interface TokenSourceOptions {
  /** Base address of the authorization server; the token endpoint is `<authUrl>/v1/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  /** Renew this long before expiry (default 10 s, the vendor SDK's margin). */
  renewBeforeSeconds?: number;
  /** Pool to use instead of the shared per-origin one (the caller keeps ownership). */
  dispatcher?: Pool;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout of the token request (default 30 s). */
  timeoutMs?: number;
}

/** Lifetime assumed when the server does not say (the real service issues one-hour tokens). */
const DEFAULT_LIFETIME_S = 3600;
/** For short-lived tokens a fixed margin could exceed the lifetime: never renew earlier than this fraction. */
const MAX_MARGIN_FRACTION = 0.2;

/**
 * Client-credentials tokens for one credential set: cached, renewed ahead of expiry, and fetched
 * by one request at a time however many callers wait. Secrets live in private fields so that
 * `util.inspect` and JSON of this object cannot reveal them.
 */
export class TokenSource {
  /** Base address of the authorization server (no credentials in it). */
  readonly authUrl: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly #secret: string;
  readonly #base: ServiceBase;
  readonly #renewBeforeMs: number;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #lease: DispatcherLease;
  readonly #closing = new AbortController();
  #cached?: Token & { renewAt: number };
  #inflight?: Promise<Token>;

  constructor(options: TokenSourceOptions) {
    const checked = checkTokenSourceOptions(options);
    this.#base = checked.base;
    this.authUrl = checked.authUrl;
    this.clientId = options.clientId;
    this.scopes = checked.scopes;
    this.#secret = options.clientSecret;
    this.#renewBeforeMs = checked.renewBeforeMs;
    this.#retry = checked.retry;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#lease = usePool(this.#base.origin, options.dispatcher);
  }

  /** A valid token, from the cache when it is not about to expire. */
  getToken(): Promise<Token> {
    if (this.#closing.signal.aborted) return Promise.reject(closedError('getToken', 'token source'));
    const cached = this.#cached;
    if (cached && Date.now() < cached.renewAt) return Promise.resolve(publicView(cached));
    if (!this.#inflight) {
      // Cleared when settled so a failure reaches every waiter of this round but is not cached.
      this.#inflight = this.#renew(cached).finally(() => {
        this.#inflight = undefined;
      });
    }
    return this.#inflight;
  }

  /** Forgets `accessToken` after the service refused it (401); the next getToken() fetches a new one. */
  invalidate(accessToken: string): void {
    if (this.#cached?.accessToken === accessToken) this.#cached = undefined;
  }

  /** True once close() was called: getToken() then rejects with code 'closed'. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** Drops the cached token, stops retries and releases the connection pool (when this source owns its lease). */
  async close(): Promise<void> {
    this.#closing.abort();
    this.#cached = undefined;
    await this.#lease.release();
  }

  async #renew(previous?: Token): Promise<Token> {
    let token: Token & { renewAt: number };
    try {
      token = await this.#requestWithRetry();
    } catch (err) {
      // A blip of the authorization server should not stop calls while the old token still works.
      if (previous && !this.closed && Date.now() < previous.expiresAt - 1000 && err instanceof ApiError && err.retryable) {
        return publicView(previous);
      }
      throw err;
    }
    // A token that arrives after close() would outlive it in the cache: drop it.
    if (this.closed) throw closedError('getToken', 'token source');
    this.#cached = token;
    return publicView(token);
  }

  #requestWithRetry(): Promise<Token & { renewAt: number }> {
    return withRetries({ operation: 'getToken', policy: this.#retry, closing: this.#closing.signal, owner: 'token source' }, () => this.#requestOnce());
  }

  async #requestOnce(): Promise<Token & { renewAt: number }> {
    const startedAt = Date.now();
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: this.scopes.join(' ') });
    const received = await send({
      pool: this.#lease.pool,
      base: this.#base,
      method: 'POST',
      path: '/v1/token',
      headers: {
        authorization: `Basic ${Buffer.from(`${this.clientId}:${this.#secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      timeoutMs: this.#timeoutMs,
      operation: 'getToken',
    });
    if (received.status === 401 || received.status === 403 || (received.status === 400 && /invalid_client/.test(received.text))) {
      const fault = responseError('getToken', received.status, received.text);
      throw new ApiError({
        operation: 'getToken',
        status: received.status,
        serviceMessage: fault.serviceMessage,
        code: fault.code ?? 'invalid_client',
        retryable: false,
        message: `getToken failed: the client id or client secret was rejected by ${this.authUrl} (HTTP ${received.status}: ${fault.serviceMessage})`,
      });
    }
    if (received.status < 200 || received.status >= 300) {
      throw responseError('getToken', received.status, received.text, { retryAfter: received.headers['retry-after'] });
    }
    const token = parseTokenResponse(received.text);
    const lifetimeMs = token.expiresInS * 1000;
    const expiresAt = startedAt + lifetimeMs;
    const margin = Math.min(this.#renewBeforeMs, lifetimeMs * MAX_MARGIN_FRACTION);
    return { accessToken: token.accessToken, apiKey: token.apiKey, expiresAt, renewAt: expiresAt - margin };
  }
}

/** Token source options after checking, in the form the source (and the shared registry's key) uses. */
export interface CheckedTokenSourceOptions {
  base: ServiceBase;
  /** Normalised base address: origin and path prefix, without a trailing /v1. */
  authUrl: string;
  scopes: readonly string[];
  renewBeforeMs: number;
  retry: RetryPolicy;
}

/** Checks every option (InputError naming the field) and normalises the address and scopes. */
export function checkTokenSourceOptions(options: TokenSourceOptions): CheckedTokenSourceOptions {
  if (!options || typeof options !== 'object') throw new InputError('options', 'token source options are required', 'object');
  const base = parseServiceBase(options.authUrl, 'authUrl');
  requireText(options.clientId, 'clientId', 'client id');
  requireText(options.clientSecret, 'clientSecret', 'client secret');
  if (!Array.isArray(options.scopes) || options.scopes.some((s) => typeof s !== 'string' || /\s/.test(s))) {
    throw new InputError('scopes', 'scopes must be an array of scope names without spaces', 'string[]');
  }
  const renewBefore = options.renewBeforeSeconds ?? 10;
  if (!Number.isFinite(renewBefore) || renewBefore < 0) {
    throw new InputError('renewBeforeSeconds', 'renewBeforeSeconds must be a number >= 0', '>= 0');
  }
  return {
    base,
    authUrl: base.origin + base.prefix,
    scopes: Object.freeze([...options.scopes]),
    renewBeforeMs: renewBefore * 1000,
    retry: resolveRetryPolicy(options.retry),
  };
}

function parseTokenResponse(text: string): { accessToken: string; apiKey?: string; expiresInS: number } {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalidTokenResponse('the body is not JSON');
  }
  const accessToken = body.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') throw invalidTokenResponse('access_token is missing');
  const apiKey = typeof body.api_key === 'string' && body.api_key !== '' ? body.api_key : undefined;
  const expiresIn = Number(body.expires_in ?? DEFAULT_LIFETIME_S);
  return { accessToken, apiKey, expiresInS: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S };
}

function invalidTokenResponse(why: string): ApiError {
  return new ApiError({ operation: 'getToken', status: 200, serviceMessage: why, code: 'invalid_response', retryable: false, message: `getToken failed: unexpected token response (${why})` });
}

function publicView(token: Token): Token {
  return token.apiKey === undefined
    ? { accessToken: token.accessToken, expiresAt: token.expiresAt }
    : { accessToken: token.accessToken, apiKey: token.apiKey, expiresAt: token.expiresAt };
}

function requireText(value: unknown, field: string, what: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InputError(field, `${field} is required: the ${what} of the API client (non-empty string)`, 'non-empty string');
  }
}
