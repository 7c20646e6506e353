import type { Dispatcher } from 'undici';
import { ApiError, InputError } from '../errors';
import { defaultDispatcher } from '../http/dispatcher';
import { resolveRetryPolicy, type RetryPolicy } from '../http/retry';
import { abortedError, closedError, withRetries } from '../http/retry-loop';
import { sleep } from '../http/sleep';
import { undiciTransport } from '../http/transport';
import { parseServiceBase, type ServiceBase } from '../http/url';
import { raceAbort } from '../util/abort';
import type { Token, TokenProvider } from './provider';
import { checkScopes, fetchToken, requireText } from './request-token';

export type { Token } from './provider';

/** How to obtain tokens for one client (client id + secret + scopes). */
export interface TokenSourceOptions {
  /** Base address of the authorization server; the token endpoint is `<authUrl>/v1/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  /** Renew this long before expiry (default 10 s, the vendor SDK's margin). */
  renewBeforeSeconds?: number;
  /** undici dispatcher to send through (default: the shared one, see defaultDispatcher()); the caller keeps ownership. */
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout of the token request (default 30 s). */
  timeoutMs?: number;
}

/** For short-lived tokens a fixed margin could exceed the lifetime: never renew earlier than this fraction. */
const MAX_MARGIN_FRACTION = 0.2;

/**
 * Client-credentials tokens for one credential set: cached, renewed ahead of expiry, and fetched
 * by one request at a time however many callers wait. Secrets live in private fields so that
 * `util.inspect` and JSON of this object cannot reveal them.
 */
export class TokenSource implements TokenProvider {
  /** Base address of the authorization server (no credentials in it). */
  readonly authUrl: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly #secret: string;
  readonly #base: ServiceBase;
  readonly #renewBeforeMs: number;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #dispatcher?: Dispatcher;
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
    this.#timeoutMs = checked.timeoutMs;
    this.#dispatcher = options.dispatcher;
  }

  /**
   * A valid token, from the cache when it is not about to expire. `signal` ends only this caller's
   * wait (ApiError 'ABORTED'): a request other callers share goes on.
   */
  getToken(signal?: AbortSignal): Promise<Token> {
    if (this.#closing.signal.aborted) return Promise.reject(closedError('getToken', 'token source'));
    if (signal?.aborted) return Promise.reject(abortedError('getToken'));
    const cached = this.#cached;
    if (cached && Date.now() < cached.renewAt) return Promise.resolve(publicView(cached));
    if (!this.#inflight) {
      // Cleared when settled so a failure reaches every waiter of this round but is not cached.
      this.#inflight = this.#renew(cached).finally(() => {
        this.#inflight = undefined;
      });
    }
    return raceAbort(this.#inflight, signal, () => abortedError('getToken'));
  }

  /** Forgets `accessToken` after the service refused it (401); the next getToken() fetches a new one. */
  invalidate(accessToken: string): void {
    if (this.#cached?.accessToken === accessToken) this.#cached = undefined;
  }

  /** True once close() was called: getToken() then rejects with code 'closed'. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** Drops the cached token and stops retries. The dispatcher is not closed (it is shared or the caller's). */
  close(): Promise<void> {
    this.#closing.abort();
    this.#cached = undefined;
    return Promise.resolve();
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
    return withRetries({ operation: 'getToken', policy: this.#retry, sleep, closing: this.#closing.signal, owner: 'token source' }, () => this.#requestOnce());
  }

  async #requestOnce(): Promise<Token & { renewAt: number }> {
    const token = await fetchToken({
      base: this.#base,
      authUrl: this.authUrl,
      clientId: this.clientId,
      clientSecret: this.#secret,
      scopes: this.scopes,
      transport: undiciTransport(this.#dispatcher ?? defaultDispatcher()),
      timeoutMs: this.#timeoutMs,
      // close() ends a request in flight rather than waiting for it.
      signal: this.#closing.signal,
    });
    const lifetimeMs = token.expiresInS * 1000;
    const margin = Math.min(this.#renewBeforeMs, lifetimeMs * MAX_MARGIN_FRACTION);
    const view = publicView(token);
    return { ...view, renewAt: token.expiresAt - margin };
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
  timeoutMs: number;
}

/** Checks every option (InputError naming the field) and normalises the address and scopes. */
export function checkTokenSourceOptions(options: TokenSourceOptions): CheckedTokenSourceOptions {
  if (!options || typeof options !== 'object') throw new InputError('invalid_input', 'token source options are required', { field: 'options', limit: 'object' });
  const base = parseServiceBase(options.authUrl, 'authUrl');
  requireText(options.clientId, 'clientId', 'client id');
  requireText(options.clientSecret, 'clientSecret', 'client secret');
  checkScopes(options.scopes);
  const renewBefore = options.renewBeforeSeconds ?? 10;
  if (!Number.isFinite(renewBefore) || renewBefore < 0) {
    throw new InputError('invalid_input', 'renewBeforeSeconds must be a number >= 0', { field: 'renewBeforeSeconds', limit: '>= 0' });
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new InputError('invalid_input', 'timeoutMs must be a number > 0', { field: 'timeoutMs', limit: '> 0' });
  return {
    base,
    authUrl: base.origin + base.prefix,
    scopes: Object.freeze([...options.scopes]),
    renewBeforeMs: renewBefore * 1000,
    retry: resolveRetryPolicy(options.retry),
    timeoutMs,
  };
}

function publicView(token: Token): Token {
  return token.apiKey === undefined
    ? { accessToken: token.accessToken, expiresAt: token.expiresAt }
    : { accessToken: token.accessToken, apiKey: token.apiKey, expiresAt: token.expiresAt };
}
