import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { mediaType } from '../http/body';
import { sendJson, sendMessage } from '../http/respond';
import type { SandboxContext, SandboxModule } from '../module';
import { ALL_SCOPES } from './scopes';
import type { TokenStore } from './token-store';

/** The one client the sandbox knows. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** OAuth 2.0 (RFC 6749 section 5.2) error answer, the shape an authorization server uses. */
function oauthError(res: ServerResponse, status: number, error: string, description: string): void {
  const headers: Record<string, string> = status === 401 ? { 'www-authenticate': 'Basic realm="token"' } : {};
  sendJson(res, status, { error, error_description: description }, headers);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * Whether presented credentials are the client's, taken as sent or form-decoded: RFC 6749 2.3.1 asks
 * clients to form-encode both parts before Basic, most send them raw.
 */
function matches(presented: ClientCredentials, client: ClientCredentials): boolean {
  const same = (id: string, secret: string): boolean => sameText(id, client.clientId) && sameText(secret, client.clientSecret);
  return same(presented.clientId, presented.clientSecret) || same(formDecode(presented.clientId), formDecode(presented.clientSecret));
}

/** Reads client_id/client_secret from HTTP Basic, falling back to the form body (RFC 6749 2.3.1). */
function clientFrom(req: IncomingMessage, form: URLSearchParams): ClientCredentials | undefined {
  const basic = /^Basic\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
  }
  const clientId = form.get('client_id');
  const clientSecret = form.get('client_secret');
  return clientId !== null && clientSecret !== null ? { clientId, clientSecret } : undefined;
}

/** Serves POST /v1/token: the client-credentials grant of the authorization API. */
export function createTokenModule(ctx: SandboxContext, store: TokenStore, client: ClientCredentials): SandboxModule {
  return {
    async handle(req, res, url, body) {
      if (url.pathname !== '/v1/token') return false;
      if (req.method !== 'POST') {
        sendMessage(res, 405, 'Method Not Allowed', { allow: 'POST' });
        return true;
      }
      if (await ctx.applyFaults('token', res)) return true;
      if (mediaType(req) !== 'application/x-www-form-urlencoded') {
        oauthError(res, 400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
        return true;
      }
      let form: URLSearchParams;
      try {
        form = new URLSearchParams(body.toString('utf8'));
      } catch {
        oauthError(res, 400, 'invalid_request', 'The form body could not be read');
        return true;
      }
      const presented = clientFrom(req, form);
      if (!presented || !matches(presented, client)) {
        oauthError(res, 401, 'invalid_client', 'Client authentication failed.');
        return true;
      }
      if (form.get('grant_type') !== 'client_credentials') {
        oauthError(res, 400, 'unsupported_grant_type', 'grant_type must be client_credentials');
        return true;
      }
      const requested = (form.get('scope') ?? '').split(/\s+/).filter(Boolean);
      const unknown = requested.filter((scope) => !ALL_SCOPES.includes(scope));
      if (unknown.length > 0) {
        oauthError(res, 400, 'invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
        return true;
      }
      const granted = new Set(requested.length > 0 ? requested : ALL_SCOPES);
      const issued = store.issue(client.clientId, granted);
      sendJson(res, 200, {
        access_token: issued.accessToken,
        api_key: issued.apiKey,
        expires_in: issued.expiresIn,
        scope: [...granted].join(' '),
        token_type: 'Bearer',
      }, { 'cache-control': 'no-store' });
      return true;
    },
    async reset() {
      store.reset();
    },
    async close() {},
  };
}
