import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stand-in saw (the body is read whole before the handler runs). */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Answers one request; may also destroy the socket. */
export type StandInHandler = (req: SeenRequest, res: ServerResponse, raw: IncomingMessage) => void;

/** A running stand-in server. */
export interface StandIn {
  /** Base address, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Every request received, in order. */
  readonly seen: SeenRequest[];
  /** Requests received on one path. */
  count(path: string): number;
  /** Closes the server and every connection. */
  stop(): Promise<void>;
}

/**
 * A scripted HTTP server on 127.0.0.1 (ephemeral port) for answers the sandbox never gives (huge
 * error pages, long Retry-After, odd token endpoint statuses). `POST /v1/token` is answered with a
 * fixed token unless the handler is given `handleToken: true`.
 */
export async function startStandIn(handler: StandInHandler, options: { handleToken?: boolean } = {}): Promise<StandIn> {
  const seen: SeenRequest[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const req: SeenRequest = {
        method: raw.method ?? 'GET',
        path: new URL(raw.url ?? '/', 'http://stand-in.invalid').pathname,
        headers: raw.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(req);
      if (req.path === '/v1/token' && !options.handleToken) {
        answerToken(res);
        return;
      }
      handler(req, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    count: (path) => seen.filter((r) => r.path === path).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Token handed out by the stand-in (not a secret: nothing accepts it but the stand-in). */
export const STAND_IN_TOKEN = { access_token: 'stand-in-access-token', api_key: 'stand-in-api-key', expires_in: 3600 } as const;

/** Writes a successful client-credentials token response. */
export function answerToken(res: ServerResponse, body: Record<string, unknown> = STAND_IN_TOKEN): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Writes a JSON answer with the given status and extra headers. */
export function answerJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
