import { randomBytes } from 'node:crypto';
import type { TokenScope } from '../module';
import { scopeAllows } from './scopes';

/** What the store remembers about one issued access token. */
export interface IssuedToken {
  readonly clientId: string;
  readonly scopes: ReadonlySet<string>;
  readonly expiresAt: number;
}

/** Result of checking a request's credentials. */
export type Verdict = { ok: true; clientId: string } | { ok: false; status: 401 | 403 };

/** Issues access tokens and API keys and checks them; all in memory. */
export class TokenStore {
  #tokens = new Map<string, IssuedToken>();
  /** One API key per client, stable for the process, like a key bound to a usage plan. */
  #apiKeys = new Map<string, string>();
  #issued = 0;

  readonly #lifetimeSeconds: number;
  readonly #now: () => number;

  constructor(lifetimeSeconds: number, now: () => number = Date.now) {
    this.#lifetimeSeconds = lifetimeSeconds;
    this.#now = now;
  }

  /** Number of tokens issued since the last reset. */
  get issuedCount(): number {
    return this.#issued;
  }

  /** Number of tokens remembered (valid ones, and expired ones not yet pruned). */
  get storedCount(): number {
    return this.#tokens.size;
  }

  /** Issues a fresh token for a client with the granted scopes. */
  issue(clientId: string, scopes: ReadonlySet<string>): { accessToken: string; apiKey: string; expiresIn: number } {
    // Issuing is where the map grows, so it is also where expired tokens go: a long-running sandbox stays bounded.
    this.#pruneExpired();
    const accessToken = randomBytes(32).toString('base64url');
    this.#tokens.set(accessToken, { clientId, scopes, expiresAt: this.#now() + this.#lifetimeSeconds * 1000 });
    this.#issued += 1;
    return { accessToken, apiKey: this.#apiKeyFor(clientId), expiresIn: this.#lifetimeSeconds };
  }

  /** Checks the bearer token (401) and, when asked, the API key of the same client (403). */
  verify(authorization: string | undefined, apiKey: string | undefined, service: TokenScope, needApiKey: boolean): Verdict {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const token = match ? this.#tokens.get(match[1]) : undefined;
    if (!token || token.expiresAt <= this.#now() || !scopeAllows(token.scopes, service)) return { ok: false, status: 401 };
    if (needApiKey && apiKey !== this.#apiKeys.get(token.clientId)) return { ok: false, status: 403 };
    return { ok: true, clientId: token.clientId };
  }

  /** Makes every issued token invalid at once (the next call with one gets 401). */
  expireAll(): void {
    this.#tokens.clear();
  }

  /** Forgets tokens, API keys and counters. */
  reset(): void {
    this.#tokens.clear();
    this.#apiKeys.clear();
    this.#issued = 0;
  }

  #pruneExpired(): void {
    const now = this.#now();
    for (const [accessToken, token] of this.#tokens) {
      if (token.expiresAt <= now) this.#tokens.delete(accessToken);
    }
  }

  #apiKeyFor(clientId: string): string {
    let key = this.#apiKeys.get(clientId);
    if (!key) {
      key = randomBytes(20).toString('hex');
      this.#apiKeys.set(clientId, key);
    }
    return key;
  }
}
