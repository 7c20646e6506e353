import { inspect } from 'node:util';
import { TokenSource } from '../../shared/auth';
import { HttpClient } from '../../shared/http';
import { downloadImage } from '../../shared/image';
import { VisionClient } from '../../shared/vision';
import { CLIENT_ID, CLIENT_SECRET, caught, closedPort, startHarness, type Harness } from './harness';
import { startFixtureServer } from '../support/fixture-server';
import { tinyJpeg } from '../support/images';

/** Every rendering of an error (or object) a host might log or show. */
function renderings(value: unknown): string[] {
  const out = [inspect(value, { showHidden: true, depth: Infinity, getters: true }), JSON.stringify(value) ?? '', String(value)];
  if (value instanceof Error) out.push(value.message, value.stack ?? '');
  return out;
}

describe('no secret in errors or objects', () => {
  let h: Harness;
  const secrets: string[] = [CLIENT_SECRET, Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')];

  beforeAll(async () => {
    h = await startHarness({}, { retries: 1, baseDelayMs: 1, maxDelayMs: 2 });
    const token = await h.tokens.getToken();
    secrets.push(token.accessToken);
    if (token.apiKey) secrets.push(token.apiKey);
  });
  afterAll(async () => {
    await h.stop();
  });

  it('keeps secrets out of errors from every failure path', async () => {
    const wrongSecret = `${CLIENT_SECRET}-wrong`;
    const errors: Error[] = [];
    const fast = { retries: 1, baseDelayMs: 1, maxDelayMs: 2 };

    // Rejected credentials.
    const wrong = new VisionClient({ authUrl: h.sandbox.url, visionUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: wrongSecret, retry: fast });
    errors.push(await caught(() => wrong.listCollections()));
    await wrong.close();

    // Unreachable authorization server and unreachable vision service.
    const port = await closedPort();
    const noAuth = new TokenSource({ authUrl: `http://127.0.0.1:${port}`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: [], retry: fast });
    errors.push(await caught(() => noAuth.getToken()));
    await noAuth.close();
    const noVision = new VisionClient({ visionUrl: `http://127.0.0.1:${port}`, tokens: h.tokens, retry: fast });
    errors.push(await caught(() => noVision.detectFaces(tinyJpeg())));
    await noVision.close();

    // Service refusals: 403, 415, 404, injected 429/500/504, and a 401 that renewal cannot fix.
    const noKey = new HttpClient({ baseUrl: h.sandbox.url, tokens: h.tokens, sendApiKey: false, retry: fast });
    errors.push(await caught(() => noKey.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' })));
    await noKey.close();
    errors.push(await caught(() => h.http.request({ method: 'POST', path: '/v1/detect_faces', body: 'x', headers: { 'content-type': 'text/plain' }, operation: 'detectFaces' })));
    errors.push(await caught(() => h.client.listFaces('missing')));
    for (const fault of [{ tooManyRequests: 1 }, { limitExceeded: 1 }, { serverError: 1 }, { timeout: 1 }]) {
      h.sandbox.setFaults({ collections: fault });
      errors.push(await caught(() => h.client.listCollections()));
    }
    h.sandbox.clearFaults();
    const streamingOnly = new TokenSource({ authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: ['sfu.api.ricoh/v1/sfu'] });
    const wrongScope = new VisionClient({ visionUrl: h.sandbox.url, tokens: streamingOnly, retry: fast });
    errors.push(await caught(() => wrongScope.listCollections()));
    await wrongScope.close();
    await streamingOnly.close();

    // A timeout while waiting for the response.
    h.sandbox.setFaults({ collections: { latencyMs: 300 } });
    const impatient = new HttpClient({ baseUrl: h.sandbox.url, tokens: h.tokens, sendApiKey: true, retry: { retries: 0 }, timeoutMs: 50 });
    const timedOut = await caught(() => impatient.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' }));
    errors.push(timedOut);
    expect(timedOut).toMatchObject({ status: undefined, retryable: true });
    await impatient.close();
    h.sandbox.clearFaults();

    expect(errors).toHaveLength(12);
    for (const err of errors) {
      expect(err.name).toMatch(/ApiError|InputError/);
      for (const text of renderings(err)) {
        for (const secret of [...secrets, wrongSecret]) expect(text).not.toContain(secret);
      }
    }
  });

  it('keeps URL credentials, paths and signed queries out of image download errors', async () => {
    const signature = `SIG${Math.random().toString(36).slice(2)}xyz`;
    const password = `pw${Math.random().toString(36).slice(2)}`;
    const port = await closedPort();
    const fixtures = await startFixtureServer({});
    const limits = { maxBytes: 1_000_000, timeoutMs: 5_000 };
    const errors: Error[] = [];
    try {
      // Mixed comparisons make the client download the URL itself.
      errors.push(await caught(() => h.client.compareFaces(`http://127.0.0.1:${port}/private/a.jpg?sig=${signature}`, tinyJpeg())));
      errors.push(await caught(() => h.client.compareFaces(tinyJpeg(), `${fixtures.url}/private/b.jpg?X-Amz-Signature=${signature}`)));
      errors.push(await caught(() => h.client.compareFaces(`http://user:${password}@127.0.0.1:${port}/private/a.jpg?sig=${signature}`, tinyJpeg())));
      errors.push(await caught(() => downloadImage(`http://user:${password}@127.0.0.1:${port}/private/a.jpg?sig=${signature}`, 'image', limits)));
      errors.push(await caught(() => downloadImage(`http://127.0.0.1:${port}/private/a.jpg?sig=${signature}`, 'image', limits, { allowPrivateAddresses: true })));
    } finally {
      await fixtures.stop();
    }
    expect(errors.map((err) => [err.name, (err as { field?: string }).field])).toEqual([
      ['InputError', 'source'],
      ['InputError', 'target'],
      ['InputError', 'source'],
      ['InputError', 'image'],
      ['InputError', 'image'],
    ]);
    // A closed port and a missing file: one message, which tells neither apart.
    expect(errors[0].message).toMatch(/could not be downloaded from http:\/\/127\.0\.0\.1:\d+: no image came back/);
    expect(errors[1].message.replace(/\d+/g, 'N')).toBe(errors[0].message.replace(/\d+/g, 'N').replace('source', 'target'));
    expect(errors[4].message).toMatch(/no image came back/);
    expect(errors[2].message).toMatch(/user name or password/);
    for (const err of errors) {
      for (const text of renderings(err)) {
        for (const secret of [signature, password, '@127.0.0.1', '/private/', 'sig=']) expect(text).not.toContain(secret);
      }
    }
  });

  it('keeps secrets out of the client objects themselves', async () => {
    for (const value of [h.tokens, h.client, h.http]) {
      for (const text of renderings(value)) {
        for (const secret of secrets) expect(text).not.toContain(secret);
      }
    }
  });
});
