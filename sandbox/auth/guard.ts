import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendMessage } from '../http/respond';
import type { TokenScope } from '../module';
import type { TokenStore } from './token-store';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a service request's credentials as the gateway does: no valid bearer token -> 401 Unauthorized;
 * for vision, a valid token with a wrong or missing x-api-key -> 403 Forbidden.
 * Returns the client id, or undefined after writing the refusal.
 */
export function guard(store: TokenStore, req: IncomingMessage, res: ServerResponse, service: TokenScope): string | undefined {
  const verdict = store.verify(header(req, 'authorization'), header(req, 'x-api-key'), service, service === 'vision');
  if (verdict.ok) return verdict.clientId;
  sendMessage(res, verdict.status, verdict.status === 401 ? 'Unauthorized' : 'Forbidden');
  return undefined;
}
