import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { VisionClient } from '../../shared/vision';
import { CLIENT_ID, CLIENT_SECRET, startHarness, type Harness } from './harness';

/** A tiny CONNECT proxy on 127.0.0.1 that counts the tunnels it opens, per target. */
interface TunnelProxy {
  url: string;
  tunnels: string[];
  stop(): Promise<void>;
}

async function startTunnelProxy(): Promise<TunnelProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    // Plain forwarding is not offered: a client that does not tunnel shows up as a failure.
    res.writeHead(405).end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const [host, port] = target.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The default dispatcher is built on first use, so this file sets the proxy variables before any
 * client of this module registry sends anything (jest gives every test file its own registry).
 */
describe('default dispatcher and the proxy environment', () => {
  const saved = { ...process.env };
  let h: Harness;
  let proxy: TunnelProxy;

  beforeAll(async () => {
    proxy = await startTunnelProxy();
    for (const name of ['http_proxy', 'https_proxy', 'no_proxy', 'NO_PROXY', 'HTTPS_PROXY']) delete process.env[name];
    process.env.HTTP_PROXY = proxy.url;
    h = await startHarness();
  });
  afterAll(async () => {
    process.env = saved;
    await h.stop();
    await proxy.stop();
  });

  it('sends through HTTP_PROXY, and straight to hosts listed in NO_PROXY', async () => {
    const client = new VisionClient({ visionUrl: h.sandbox.url, authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    const target = new URL(h.sandbox.url).host;
    const before = h.requests();
    await client.listCollections();
    await client.listCollections();
    // The token and two calls arrived, through one kept-alive tunnel to the sandbox.
    expect(h.requests() - before).toBe(3);
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(1);
    expect(new Set(proxy.tunnels)).toEqual(new Set([target]));

    // NO_PROXY is read on every request.
    process.env.NO_PROXY = '127.0.0.1';
    const tunnels = proxy.tunnels.length;
    await client.listCollections();
    expect(h.requests() - before).toBe(4);
    expect(proxy.tunnels.length).toBe(tunnels);
    await client.close();
  });
});
