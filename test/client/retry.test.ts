import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenSource, VISION_SCOPES } from '../../shared/auth';
import { ApiError } from '../../shared/errors';
import { HttpClient } from '../../shared/http';
import { VisionClient } from '../../shared/vision';
import { answerJson, startStandIn, type StandIn } from '../support/stand-in';
import { tinyJpeg } from '../support/images';
import { FAST_RETRY, caught, startHarness, type Harness } from './harness';

describe('retries against injected faults', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.resetAndWarm();
  });

  it('completes 200 calls while 25% of attempts fail with 429 / 500 / 504', async () => {
    h.sandbox.setFaults({ collections: { tooManyRequests: 0.09, serverError: 0.08, timeout: 0.08, seed: 42 } });
    const before = h.hits('collections');
    let next = 0;
    const results: unknown[] = [];
    const worker = async () => {
      while (next < 200) {
        next += 1;
        results.push(await h.client.listCollections());
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(results).toHaveLength(200);
    for (const r of results) expect(r).toEqual([]);
    // Faults really happened: more attempts than calls.
    expect(h.hits('collections') - before).toBeGreaterThan(220);
  });

  it('fails fast on quota exhaustion (429 Limit Exceeded): one request, clear error', async () => {
    h.sandbox.setFaults({ detect_faces: { limitExceeded: 1 } });
    const before = h.requests();
    const err = await caught(() => h.client.detectFaces(tinyJpeg()));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, retryable: false });
    expect(err.message).toMatch(/quota exhausted/);
    expect(h.requests() - before).toBe(1);
  });

  it('gives up after the configured retries when throttling persists', async () => {
    h.sandbox.setFaults({ collections: { tooManyRequests: 1 } });
    const before = h.hits('collections');
    const err = await caught(() => h.client.listCollections());
    expect(err).toMatchObject({ name: 'ApiError', status: 429, retryable: true, serviceMessage: 'Too Many Requests' });
    expect(h.hits('collections') - before).toBe(FAST_RETRY.retries + 1);
  });

  it('does not repeat createCollection after a 500 (it may have been created)', async () => {
    h.sandbox.setFaults({ collections: { serverError: 1 } });
    const before = h.hits('collections');
    const err = await caught(() => h.client.createCollection());
    expect(err).toMatchObject({ status: 500, retryable: true });
    expect(h.hits('collections') - before).toBe(1);
  });

  it('does repeat createCollection after 429 Too Many Requests (the service did nothing)', async () => {
    h.sandbox.setFaults({ collections: { tooManyRequests: 0.5, seed: 7 } });
    const before = h.hits('collections');
    const created = await h.client.createCollection();
    expect(created.collectionId).toEqual(expect.any(String));
    expect(h.hits('collections') - before).toBeGreaterThan(1);
    h.sandbox.clearFaults();
    await h.client.deleteCollection(created.collectionId);
  });
});

describe('retries on connection resets and Retry-After', () => {
  let h: Harness;
  let server: Server;
  let base: string;
  let script: Array<'reset' | 'retry-after' | 'not-found' | 'created' | 'ok'> = [];
  let served = 0;
  const seen: Array<{ method?: string; url?: string; type?: string; length?: string }> = [];

  beforeAll(async () => {
    h = await startHarness();
    // A stand-in service in front of which the connection breaks; the token still comes from the sandbox.
    server = createServer((req, res) => {
      served += 1;
      seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], length: req.headers['content-length'] });
      const step = script.shift() ?? 'ok';
      if (step === 'reset') {
        req.socket.destroy();
        return;
      }
      if (step === 'not-found') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"resource_not_found","message":"The specified resource does not exist."}}');
        return;
      }
      if (step === 'created') {
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"collection_id":"c2"}');
        return;
      }
      if (step === 'retry-after') {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"message":"Service Unavailable"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"face_collections":[{"collection_id":"c1"}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await h.stop();
  });

  it('retries after the socket is destroyed mid-request', async () => {
    script = ['reset', 'reset', 'ok'];
    served = 0;
    const client = new VisionClient({ visionUrl: base, tokens: h.tokens, retry: FAST_RETRY });
    await expect(client.listCollections()).resolves.toEqual([{ collectionId: 'c1' }]);
    expect(served).toBe(3);
    await client.close();
  });

  it('reports a reset as a retryable network error once retries run out', async () => {
    script = ['reset', 'reset'];
    const http = new HttpClient({ baseUrl: base, tokens: h.tokens, sendApiKey: true, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 2 } });
    const err = await caught(() => http.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: undefined, retryable: true });
    expect((err as ApiError).code).toMatch(/ECONNRESET|UND_ERR_SOCKET|EPIPE/);
    await http.close();
  });

  it('takes a 404 on a repeated DELETE as done, but not on the first attempt', async () => {
    const client = new VisionClient({ visionUrl: base, tokens: h.tokens, retry: FAST_RETRY });
    script = ['reset', 'not-found'];
    served = 0;
    await expect(client.deleteCollection('c1')).resolves.toBeUndefined();
    expect(served).toBe(2);
    script = ['not-found'];
    await expect(client.deleteCollection('c1')).rejects.toMatchObject({ status: 404, code: 'resource_not_found' });
    await client.close();
  });

  it('sends list, create and delete calls with Content-Type application/json and no body (spec rule 2)', async () => {
    const client = new VisionClient({ visionUrl: `${base}/v1`, tokens: h.tokens, retry: FAST_RETRY });
    script = ['ok', 'created'];
    seen.length = 0;
    await client.listCollections();
    await expect(client.createCollection()).resolves.toEqual({ collectionId: 'c2' });
    await client.deleteCollection('a b');
    await client.removeFace('a', 'f');
    await client.listFaces('a').catch(() => undefined);
    expect(seen.map((r) => [r.method, r.url, r.type, r.length ?? '0'])).toEqual([
      ['GET', '/v1/face_collections', 'application/json', '0'],
      ['POST', '/v1/face_collections', 'application/json', '0'],
      ['DELETE', '/v1/face_collections/a%20b', 'application/json', '0'],
      ['DELETE', '/v1/face_collections/a/faces/f', 'application/json', '0'],
      ['GET', '/v1/face_collections/a/faces', 'application/json', '0'],
    ]);
    await client.close();
  });

  it('keeps the Retry-After of a 503 on the error and retries after it', async () => {
    script = ['retry-after'];
    const noRetry = new HttpClient({ baseUrl: base, tokens: h.tokens, sendApiKey: true, retry: { retries: 0 } });
    const err = await caught(() => noRetry.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' }));
    expect(err).toMatchObject({ status: 503, retryable: true, retryAfterMs: 0, serviceMessage: 'Service Unavailable' });
    script = ['retry-after', 'ok'];
    served = 0;
    const withRetry = new HttpClient({ baseUrl: base, tokens: h.tokens, sendApiKey: true, retry: FAST_RETRY });
    await expect(withRetry.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' })).resolves.toEqual({
      face_collections: [{ collection_id: 'c1' }],
    });
    expect(served).toBe(2);
    await noRetry.close();
    await withRetry.close();
  });
});

describe('a Retry-After longer than the policy allows', () => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startStandIn(
      (req, res) => {
        if (req.path === '/v1/token') answerJson(res, 429, { message: 'Too Many Requests' }, { 'retry-after': '90' });
        else answerJson(res, 503, { message: 'Service Unavailable' }, { 'retry-after': '120' });
      },
      { handleToken: true },
    );
  });
  afterAll(() => standIn.stop());

  it('is not waited for: one request, and the error says when to retry', async () => {
    const tokens = new TokenSource({ authUrl: standIn.url, clientId: 'id', clientSecret: 'secret', scopes: VISION_SCOPES, retry: FAST_RETRY });
    const tokenError = await caught(() => tokens.getToken()).finally(() => tokens.close());
    expect(tokenError).toMatchObject({ name: 'ApiError', status: 429, retryable: true, retryAfterMs: 90_000 });
    expect(tokenError.message).toMatch(/retry in 90 s \(after \d{4}-\d\d-\d\dT[\d:.]+Z\), longer than retry\.maxDelayMs \(50 ms\)/);
    expect(standIn.count('/v1/token')).toBe(1);

    const withToken = await startStandIn((req, res) => answerJson(res, 503, { message: 'Service Unavailable' }, { 'retry-after': '120' }));
    const source = new TokenSource({ authUrl: withToken.url, clientId: 'id', clientSecret: 'secret', scopes: VISION_SCOPES });
    const http = new HttpClient({ baseUrl: withToken.url, tokens: source, sendApiKey: true, retry: FAST_RETRY });
    try {
      const err = await caught(() => http.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' }));
      expect(err).toMatchObject({ name: 'ApiError', status: 503, retryable: true, retryAfterMs: 120_000, serviceMessage: 'Service Unavailable' });
      expect(err.message).toMatch(/^listCollections failed: HTTP 503: Service Unavailable; the service asks to retry in 120 s/);
      expect(withToken.count('/v1/face_collections')).toBe(1);
    } finally {
      await http.close();
      await source.close();
      await withToken.stop();
    }
  });

  it('within the policy is waited for and retried', async () => {
    const short = await startStandIn((req, res) => {
      if (short.count('/v1/face_collections') === 1) answerJson(res, 503, { message: 'Service Unavailable' }, { 'retry-after': '0.02' });
      else answerJson(res, 200, { face_collections: [] });
    });
    const source = new TokenSource({ authUrl: short.url, clientId: 'id', clientSecret: 'secret', scopes: VISION_SCOPES });
    const http = new HttpClient({ baseUrl: short.url, tokens: source, sendApiKey: true, retry: FAST_RETRY });
    try {
      await expect(http.request({ method: 'GET', path: '/v1/face_collections', operation: 'listCollections' })).resolves.toEqual({ face_collections: [] });
      expect(short.count('/v1/face_collections')).toBe(2);
    } finally {
      await http.close();
      await source.close();
      await short.stop();
    }
  });
});

describe('stopping a request that is retrying', () => {
  let standIn: StandIn;
  let onRequest: () => void = () => undefined;
  let tokens: TokenSource;
  beforeAll(async () => {
    standIn = await startStandIn((req, res) => {
      onRequest();
      answerJson(res, 503, { message: 'Service Unavailable' }, req.headers['x-wait'] ? { 'retry-after': '300' } : {});
    });
    tokens = new TokenSource({ authUrl: standIn.url, clientId: 'id', clientSecret: 'secret', scopes: VISION_SCOPES });
  });
  afterAll(async () => {
    await tokens.close();
    await standIn.stop();
  });
  beforeEach(() => {
    standIn.seen.length = 0;
    onRequest = () => undefined;
  });

  const list = (client: HttpClient, extra: { wait?: boolean; signal?: AbortSignal } = {}) =>
    client.request({
      method: 'GET',
      path: '/v1/face_collections',
      operation: 'listCollections',
      headers: extra.wait ? { 'x-wait': '1' } : {},
      signal: extra.signal,
    });

  /** Runs `act` once a retry loop starts its 300 s wait (no other part of the client sets a timer that long). */
  function whenWaiting(act: () => void): jest.SpyInstance {
    const realSetTimeout = global.setTimeout;
    return jest.spyOn(global, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      if (typeof ms === 'number' && ms >= 200_000) queueMicrotask(act);
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout);
  }

  it('close() ends the retries, the shared pool staying open, and refuses later requests', async () => {
    // A second user of the same origin keeps the shared pool open after `http` releases it.
    const keeper = new HttpClient({ baseUrl: standIn.url, tokens, sendApiKey: true });
    const http = new HttpClient({ baseUrl: standIn.url, tokens, sendApiKey: true, retry: { retries: 8, baseDelayMs: 1, maxDelayMs: 2 } });
    onRequest = () => void http.close();
    const err = await caught(() => list(http));
    expect(err).toMatchObject({ name: 'ApiError', code: 'closed', retryable: false, operation: 'listCollections' });
    expect(err.message).toBe('listCollections failed: the client was closed');
    expect(standIn.count('/v1/face_collections')).toBe(1);
    const refused = await caught(() => list(http));
    expect(refused).toMatchObject({ code: 'closed' });
    expect(standIn.count('/v1/face_collections')).toBe(1);
    await keeper.close();
  });

  it('close() during a long backoff wait ends it at once', async () => {
    const http = new HttpClient({ baseUrl: standIn.url, tokens, sendApiKey: true, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 600_000 } });
    const spy = whenWaiting(() => void http.close());
    try {
      await expect(list(http, { wait: true })).rejects.toMatchObject({ code: 'closed' });
    } finally {
      spy.mockRestore();
    }
    expect(standIn.count('/v1/face_collections')).toBe(1);
  }, 15_000);

  it("the caller's abort during a long backoff wait ends it at once", async () => {
    const http = new HttpClient({ baseUrl: standIn.url, tokens, sendApiKey: true, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 600_000 } });
    const controller = new AbortController();
    const spy = whenWaiting(() => controller.abort());
    try {
      await expect(list(http, { wait: true, signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED', retryable: false });
    } finally {
      spy.mockRestore();
    }
    expect(standIn.count('/v1/face_collections')).toBe(1);
    await http.close();
  }, 15_000);
});
