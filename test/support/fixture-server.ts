import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One file the fixture server hands out. */
export interface FixtureFile {
  body: Buffer;
  contentType: string;
  /**
   * Send the body in pieces without Content-Length (chunked transfer encoding), so a reader learns
   * the size only while reading.
   */
  chunked?: boolean;
}

/** Piece size of a chunked body. */
const CHUNK_BYTES = 64 * 1024;

/** A running fixture server. */
export interface FixtureServer {
  /** Base address, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Full URL of a path served (or not: unknown paths answer 404). */
  urlOf(path: string): string;
  /** Requests received per path. */
  readonly hits: Map<string, number>;
  /** Closes the server and every connection. */
  stop(): Promise<void>;
}

/**
 * Serves the given buffers over HTTP on 127.0.0.1 (ephemeral port) so URL-mode requests have something
 * to fetch. Unknown paths get 404. Keys are paths such as '/face.jpg'.
 */
export async function startFixtureServer(files: Record<string, FixtureFile>): Promise<FixtureServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fixture.invalid').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const file = files[path];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    if (!file.chunked) {
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.body.length) });
      res.end(file.body);
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType });
    for (let at = 0; at < file.body.length; at += CHUNK_BYTES) res.write(file.body.subarray(at, at + CHUNK_BYTES));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    urlOf: (path) => url + path,
    hits,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
