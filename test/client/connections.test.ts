import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../../shared/errors';
import { connectionsPerOrigin, createDispatcher, DEFAULT_CONNECTIONS_PER_ORIGIN } from '../../shared/http';
import { undiciTransport } from '../../shared/http/transport';
import type { TokenProvider } from '../../shared/auth';
import { VisionClient } from '../../shared/vision';
import { answerJson, answerToken } from '../support/stand-in';
import { FAST_RETRY } from './harness';

// Bounded connections per service address: a flood of calls queues in the pool instead of opening a
// socket each (and failing with EMFILE past the open-files limit); EMFILE and ENFILE are retried.

interface Counting {
  url: string;
  /** Most sockets open at the same time. */
  most: () => number;
  stop: () => Promise<void>;
}

/** A service stand-in that counts its open sockets and holds each answer a little, so calls overlap. */
async function countingServer(): Promise<Counting> {
  let open = 0;
  let most = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/v1/token') return answerToken(res);
    setTimeout(() => answerJson(res, req.method === 'POST' ? 201 : 200, req.method === 'POST' ? { collection_id: 'c1' } : { face_collections: [] }), 5);
  });
  server.on('connection', (socket) => {
    most = Math.max(most, ++open);
    socket.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    most: () => most,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const tokens: TokenProvider = { getToken: () => Promise.resolve({ accessToken: 'stand-in', apiKey: 'stand-in', expiresAt: Date.now() + 3_600_000 }), invalidate: () => undefined };

test.each([
  ['the default', undefined, 300, DEFAULT_CONNECTIONS_PER_ORIGIN],
  ['a configured bound', 4, 120, 4],
])('%s: many calls at once queue on a bounded number of sockets and all succeed', async (_what, connections, calls, bound) => {
  const server = await countingServer();
  const dispatcher = createDispatcher({ connections });
  const client = new VisionClient({ visionUrl: server.url, tokens, dispatcher, retry: { retries: 0 } });
  try {
    const results = await Promise.all(Array.from({ length: calls }, () => client.listCollections()));
    expect(results).toHaveLength(calls);
    expect(server.most()).toBeLessThanOrEqual(bound);
    // The calls did overlap: the bound was reached, not merely respected by a slow trickle.
    expect(server.most()).toBe(bound);
  } finally {
    await client.close();
    await dispatcher.close();
    await server.stop();
  }
});

test('the bound comes from the option, else VS_MAX_CONNECTIONS, else 32; a bad one is an InputError naming it', () => {
  expect(connectionsPerOrigin(undefined, {})).toBe(32);
  expect(connectionsPerOrigin(undefined, { VS_MAX_CONNECTIONS: '8' })).toBe(8);
  expect(connectionsPerOrigin(16, { VS_MAX_CONNECTIONS: '8' })).toBe(16);
  for (const bad of ['0', 'lots', '1.5', '5000']) {
    const err = (() => {
      try {
        return connectionsPerOrigin(undefined, { VS_MAX_CONNECTIONS: bad });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ field: 'VS_MAX_CONNECTIONS', limit: '1..1024' });
  }
  expect(() => createDispatcher({ connections: 0 })).toThrow(/connections must be a whole number/);
});

/** undici's failure when no file descriptor is left for a socket. */
function outOfFiles(code: 'EMFILE' | 'ENFILE'): Error {
  return Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`connect ${code} 127.0.0.1:443 - Local (undefined:undefined)`), { code, syscall: 'connect' }) });
}

test.each(['EMFILE', 'ENFILE'] as const)('%s is retried like a reset, for a call that changes nothing and for one that creates', async (code) => {
  const server = await countingServer();
  const dispatcher = createDispatcher();
  const real = undiciTransport(dispatcher);
  let failures = 0;
  const client = new VisionClient({
    visionUrl: server.url,
    tokens,
    retry: FAST_RETRY,
    // The first two attempts of every call find no file descriptor; then the real transport.
    transport: (req) => (failures++ % 3 < 2 ? Promise.reject(outOfFiles(code)) : real(req)),
  });
  try {
    await expect(client.listCollections()).resolves.toEqual([]);
    // A creating call is repeated too: a socket that could not open sent nothing.
    failures = 0;
    await expect(client.createCollection()).resolves.toMatchObject({ collectionId: 'c1' });
    expect(failures).toBe(3);
  } finally {
    await client.close();
    await dispatcher.close();
    await server.stop();
  }
});
