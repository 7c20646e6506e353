import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A throwaway HTTP server on 127.0.0.1 that serves fixed bodies, for the URL input mode. */
export interface ImageServer {
  /** Address of `name`, e.g. http://127.0.0.1:1234/face.jpg */
  url(name: string): string;
  /** How many requests it answered. */
  readonly hits: number;
  close(): Promise<void>;
}

/** Serves each entry of `files` at `/<name>` with its content type; anything else is 404. */
export async function startImageServer(files: Record<string, { body: Buffer; type: string }>): Promise<ImageServer> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    const file = files[(req.url ?? '/').slice(1)];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    get hits() {
      return hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
