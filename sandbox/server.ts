import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { endpointName } from './endpoints';
import { BODY_TOO_LARGE_TEXT, readBody } from './http/body';
import { sendJson, sendMessage, sendText } from './http/respond';
import type { SandboxModule } from './module';

/** Admin actions the server core answers itself under /_sandbox/. */
export interface AdminActions {
  setFaults(body: unknown): unknown;
  expireTokens(): void;
  reset(): Promise<void>;
  stats(): unknown;
}

/** What the HTTP layer needs: the modules in the order they are offered requests, and the admin hooks. */
export interface ServerParts {
  modules: ReadonlyMap<string, SandboxModule>;
  admin: AdminActions;
  countRequest(endpoint: string): void;
}

/** Builds the one HTTP server: body reading under the 10 MB rule, counting, module routing, admin API. */
export function createSandboxServer(parts: ServerParts): Server {
  const server = createServer((req, res) => {
    handle(parts, req, res).catch((err: unknown) => {
      // A module bug must not take the process down; the client sees the gateway's 500.
      console.error('sandbox: request failed:', err instanceof Error ? err.message : String(err));
      sendMessage(res, 500, 'Internal server error');
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      for (const module of parts.modules.values()) {
        if (module.upgrade?.(req, socket, head)) return;
      }
    } catch (err) {
      console.error('sandbox: upgrade failed:', err instanceof Error ? err.message : String(err));
    }
    socket.destroy();
  });
  // Idle keep-alive sockets stay open longer than a client's pauses (a slow model call, a test's set-up),
  // so a client does not race the server's close and see ECONNRESET on a reused socket.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

async function handle(parts: ServerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const isService = url.pathname === '/v1' || url.pathname.startsWith('/v1/');
  if (isService) parts.countRequest(endpointName(url.pathname));
  const read = await readBody(req);
  if (!read.ok) {
    if (read.reason === 'too-large') sendText(res, 413, BODY_TOO_LARGE_TEXT);
    return;
  }
  if (url.pathname.startsWith('/_sandbox/')) {
    await handleAdmin(parts, req, res, url, read.body);
    return;
  }
  for (const module of parts.modules.values()) {
    if (await module.handle(req, res, url, read.body)) return;
  }
  sendMessage(res, 404, 'Not Found');
}

async function handleAdmin(parts: ServerParts, req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
  const action = url.pathname.slice('/_sandbox/'.length);
  if (req.method === 'GET' && action === 'stats') {
    sendJson(res, 200, parts.admin.stats());
    return;
  }
  if (req.method !== 'POST') {
    sendMessage(res, 405, 'Method Not Allowed', { allow: 'POST' });
    return;
  }
  let payload: unknown = {};
  if (body.length > 0) {
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      sendJson(res, 400, { error: { code: 'invalid_request', message: 'The admin request body is not valid JSON.' } });
      return;
    }
  }
  switch (action) {
    case 'faults':
      try {
        sendJson(res, 200, { faults: parts.admin.setFaults(payload) });
      } catch (err) {
        sendJson(res, 400, { error: { code: 'invalid_faults', message: err instanceof Error ? err.message : String(err) } });
      }
      return;
    case 'expire-tokens':
      parts.admin.expireTokens();
      sendJson(res, 200, { expired: true });
      return;
    case 'reset':
      await parts.admin.reset();
      sendJson(res, 200, { reset: true });
      return;
  }
  const [moduleName, moduleAction] = action.split('/');
  const module = parts.modules.get(moduleName);
  const result = moduleAction && module?.admin ? await module.admin(moduleAction, payload) : undefined;
  if (result === undefined) {
    sendJson(res, 404, { error: { code: 'unknown_admin_action', message: `No admin action "${action}".` } });
    return;
  }
  sendJson(res, 200, result ?? {});
}
