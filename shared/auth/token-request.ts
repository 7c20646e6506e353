import { ApiError, InputError, shortenText } from '../errors';
import { parseErrorBody, responseError } from '../http/error-body';
import { resolveRetryPolicy, type RetryPolicy, type Sleep } from '../http/retry';
import { withRetries } from '../http/retry-loop';
import { send } from '../http/send';
import type { HttpTransport } from '../http/transport';
import { parseServiceBase, type ServiceBase } from '../http/url';
import type { Token } from './provider';

/** Lifetime assumed when the server does not say (the real service issues one-hour tokens). */
const DEFAULT_LIFETIME_S = 3600;

/** A token as the server issued it, with its lifetime in seconds. */
export type IssuedToken = Token & { expiresInS: number };

/** What one token request needs. */
export interface TokenRequest {
  base: ServiceBase;
  /** Normalised auth address, for messages. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  transport: HttpTransport;
  /** True for a host's transport: it then gets an exact deadline. */
  hostTransport?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** One POST to `<authUrl>/v1/token` (client credentials), no retry. */
export async function fetchToken(req: TokenRequest): Promise<IssuedToken> {
  const startedAt = Date.now();
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope: req.scopes.join(' ') });
  const received = await send({
    transport: req.transport,
    foreign: req.hostTransport,
    base: req.base,
    method: 'POST',
    path: '/v1/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${req.clientId}:${req.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: form.toString(),
    timeoutMs: req.timeoutMs,
    operation: 'getToken',
    signal: req.signal,
  });
  if (received.status === 401 || received.status === 403 || (received.status === 400 && /invalid_client/.test(received.text))) {
    const fault = parseErrorBody(received.text, received.status);
    throw ApiError.from({
      operation: 'getToken',
      status: received.status,
      serviceMessage: fault.message,
      code: fault.code ?? 'invalid_client',
      retryable: false,
      message: `getToken failed: the client id or client secret was rejected by ${req.authUrl} (HTTP ${received.status}: ${shortenText(fault.message)})`,
    });
  }
  if (received.status < 200 || received.status >= 300) {
    throw responseError('getToken', received.status, received.text, { retryAfter: received.headers['retry-after'] });
  }
  const token = parseTokenResponse(received.text);
  return { ...token, expiresAt: startedAt + token.expiresInS * 1000 };
}

/** Options of requestToken. */
export interface RequestTokenOptions {
  /** Base address of the authorization server; the token endpoint is `<authUrl>/v1/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
}

/** How token requests go out and how to wait between attempts (undici and timers, or a host's). */
export interface TokenRequestParts {
  transport: HttpTransport;
  hostTransport?: boolean;
  sleep: Sleep;
}

/** Fetches one token over the given transport, with retries, and caches nothing (for hosts that store the token themselves). */
export function requestTokenOver(parts: TokenRequestParts, options: RequestTokenOptions): Promise<IssuedToken> {
  if (!options || typeof options !== 'object') throw new InputError('invalid_input', 'requestToken needs options', { field: 'options', limit: 'object' });
  const base = parseServiceBase(options.authUrl, 'authUrl');
  requireText(options.clientId, 'clientId', 'client id');
  requireText(options.clientSecret, 'clientSecret', 'client secret');
  checkScopes(options.scopes);
  const policy = resolveRetryPolicy(options.retry);
  const req: TokenRequest = {
    base,
    authUrl: base.origin + base.prefix,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes,
    transport: parts.transport,
    hostTransport: parts.hostTransport,
    timeoutMs: options.timeoutMs ?? 30_000,
    signal: options.signal,
  };
  return withRetries({ operation: 'getToken', policy, sleep: parts.sleep, signal: options.signal }, () => fetchToken(req));
}

/** Refuses a scope list that is not an array of names without spaces. */
export function checkScopes(scopes: unknown): asserts scopes is readonly string[] {
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || /\s/.test(s))) {
    throw new InputError('invalid_input', 'scopes must be an array of scope names without spaces', { field: 'scopes', limit: 'string[]' });
  }
}

/** Refuses a missing or blank credential, naming the field. */
export function requireText(value: unknown, field: string, what: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InputError('invalid_input', `${field} is required: the ${what} of the API client (non-empty string)`, { field, limit: 'non-empty string' });
  }
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
  const expiresInS = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S;
  return apiKey === undefined ? { accessToken, expiresInS } : { accessToken, apiKey, expiresInS };
}

function invalidTokenResponse(why: string): ApiError {
  return ApiError.from({ operation: 'getToken', status: 200, serviceMessage: why, code: 'invalid_response', retryable: false, message: `getToken failed: unexpected token response (${why})` });
}
