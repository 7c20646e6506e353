import { request } from 'undici';
import { TokenSource, VISION_SCOPES } from '../../shared/auth';
import { ApiError } from '../../shared/errors';
import { HttpClient } from '../../shared/http';
import { startStandIn, type StandIn } from '../support/stand-in';
import { paddedJpeg, tinyJpeg } from '../support/images';
import { caught, startHarness, type Harness } from './harness';

/** One row per error of the spec's table, produced by the sandbox and read by the client. */
describe('error table of the spec', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, { retries: 2, baseDelayMs: 1, maxDelayMs: 5 });
  });
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.resetAndWarm();
  });

  it('401 Unauthorized when the token stays invalid', async () => {
    const token = await h.tokens.getToken();
    const res = await request(`${h.sandbox.url}/v1/face_collections`, { headers: { authorization: 'Bearer nope', 'x-api-key': token.apiKey ?? '' } });
    expect(res.statusCode).toBe(401);
    const body = await res.body.text();
    expect(body).toContain('Unauthorized');
  });

  it('403 Forbidden without the API key, mapped to a typed error', async () => {
    const http = new HttpClient({ baseUrl: h.sandbox.url, tokens: h.tokens, sendApiKey: false, retry: { retries: 0 } });
    const err = await caught(() => http.request({ method: 'GET', path: '/v1/face_collections', headers: { 'content-type': 'application/json' }, operation: 'listCollections' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, serviceMessage: 'Forbidden', retryable: false, operation: 'listCollections' });
    expect(err.message).toMatch(/API key/);
    await http.close();
  });

  it('413 Request Too Long (JSON) for an image the service refuses by size', async () => {
    const err = await caught(() =>
      h.http.request({ method: 'POST', path: '/v1/detect_faces', body: paddedJpeg(5 * 1024 * 1024), headers: { 'content-type': 'image/jpeg' }, operation: 'detectFaces' }),
    );
    expect(err).toMatchObject({ name: 'ApiError', status: 413, serviceMessage: 'Request Too Long', retryable: false });
  });

  it('413 plain text above 10485760 bytes', async () => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(10_485_760 + 1024)], { type: 'image/jpeg' }), 'big.jpg');
    const before = h.hits('detect_faces');
    // The client measures the serialised multipart body and refuses it without sending it.
    const refused = await caught(() => h.http.request({ method: 'POST', path: '/v1/detect_faces', body: form, operation: 'detectFaces' }));
    expect(refused).toMatchObject({ name: 'InputError', field: 'body' });
    expect(refused.message).toContain('10485760');
    expect(h.hits('detect_faces')).toBe(before);
    // The service's own plain-text 413, as it answers a body that got through anyway, still maps to its ApiError.
    const token = await h.tokens.getToken();
    const res = await request(`${h.sandbox.url}/v1/detect_faces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.accessToken}`, 'x-api-key': token.apiKey ?? '', 'content-type': 'image/jpeg' },
      body: Buffer.alloc(10_485_760 + 1024),
    });
    const answer = { status: res.statusCode, headers: res.headers, body: await res.body.text() };
    const replay = new HttpClient({ baseUrl: h.sandbox.url, transport: async () => answer, sendApiKey: true, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    const err = await caught(() => replay.request({ method: 'POST', path: '/v1/detect_faces', body: Buffer.from('small'), operation: 'detectFaces' }));
    expect(err).toMatchObject({ name: 'ApiError', status: 413, serviceMessage: 'HTTP content length exceeded 10485760 bytes.', retryable: false });
    expect(err.message).toContain('10485760');
    await replay.close();
  });

  it('415 Unsupported Media Type for a content type the service does not read', async () => {
    const err = await caught(() =>
      h.http.request({ method: 'POST', path: '/v1/detect_faces', body: Buffer.from('GIF89a\u0001\u0000\u0001\u0000'), headers: { 'content-type': 'image/gif' }, operation: 'detectFaces' }),
    );
    expect(err).toMatchObject({ name: 'ApiError', status: 415, serviceMessage: 'Unsupported Media Type', retryable: false });
  });

  it('429 Too Many Requests is retried, then reported as retryable', async () => {
    h.sandbox.setFaults({ detect_faces: { tooManyRequests: 1 } });
    const before = h.requests();
    const err = await caught(() => h.client.detectFaces(tinyJpeg()));
    expect(err).toMatchObject({ status: 429, serviceMessage: 'Too Many Requests', retryable: true, operation: 'detectFaces' });
    expect(h.requests() - before).toBe(3);
  });

  it('429 Limit Exceeded is not retried and says the quota is exhausted', async () => {
    h.sandbox.setFaults({ detect_faces: { limitExceeded: 1 } });
    const before = h.requests();
    const err = await caught(() => h.client.detectFaces(tinyJpeg()));
    expect(err).toMatchObject({ status: 429, serviceMessage: 'Limit Exceeded', retryable: false });
    expect(err.message).toMatch(/quota exhausted/);
    expect(h.requests() - before).toBe(1);
  });

  it('500 Internal server error is retried, then reported', async () => {
    h.sandbox.setFaults({ detect_faces: { serverError: 1 } });
    const before = h.requests();
    const err = await caught(() => h.client.detectFaces(tinyJpeg()));
    expect(err).toMatchObject({ status: 500, retryable: true });
    expect((err as ApiError).serviceMessage).toMatch(/Internal server error/i);
    // The first try and the 2 retries of the policy, nothing else (the token is cached).
    expect(h.requests() - before).toBe(3);
    expect(h.hits('detect_faces')).toBe(3);
  });

  it('504 Endpoint request timed out is retried, then reported', async () => {
    h.sandbox.setFaults({ detect_faces: { timeout: 1 } });
    const before = h.requests();
    const err = await caught(() => h.client.detectFaces(tinyJpeg()));
    expect(err).toMatchObject({ status: 504, serviceMessage: 'Endpoint request timed out', retryable: true });
    expect(h.requests() - before).toBe(3);
    expect(h.hits('detect_faces')).toBe(3);
  });

  it('404 for an unknown collection or face names the id', async () => {
    const err = await caught(() => h.client.listFaces('no-such-collection'));
    expect(err).toMatchObject({ name: 'ApiError', status: 404, retryable: false });
    expect(err.message).toContain('no-such-collection');
    const { collectionId } = await h.client.createCollection();
    const err2 = await caught(() => h.client.removeFace(collectionId, 'no-such-face'));
    expect(err2).toMatchObject({ status: 404 });
    expect(err2.message).toContain('no-such-face');
    await h.client.deleteCollection(collectionId);
  });
});

describe('large error bodies', () => {
  let standIn: StandIn;
  let tokens: TokenSource;
  let http: HttpClient;
  const page = `<html><head><title>502 Bad Gateway</title></head><body>${'<p>upstream trouble</p>\n'.repeat(8_000)}</body></html>`;
  const longJson = JSON.stringify({ error: { code: 'resource_not_found', message: `missing ${'x'.repeat(100_000)}` } });

  beforeAll(async () => {
    standIn = await startStandIn((req, res) => {
      if (req.path === '/v1/detect_faces') res.writeHead(502, { 'content-type': 'text/html' }).end(page);
      else res.writeHead(404, { 'content-type': 'application/json' }).end(longJson);
    });
    tokens = new TokenSource({ authUrl: standIn.url, clientId: 'id', clientSecret: 'secret', scopes: VISION_SCOPES });
    http = new HttpClient({ baseUrl: standIn.url, tokens, sendApiKey: true, retry: { retries: 0 } });
  });
  afterAll(async () => {
    await http.close();
    await tokens.close();
    await standIn.stop();
  });

  it('keeps the message of a 200 kB HTML error page short', async () => {
    expect(page.length).toBeGreaterThan(190_000);
    const err = await caught(() => http.request({ method: 'POST', path: '/v1/detect_faces', body: tinyJpeg(), headers: { 'content-type': 'image/jpeg' }, operation: 'detectFaces' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, retryable: true });
    expect((err as ApiError).serviceMessage.length).toBeLessThanOrEqual(501);
    expect(err.message.length).toBeLessThanOrEqual(1001);
    expect(err.message).toMatch(/^detectFaces failed: HTTP 502: <html><head><title>502 Bad Gateway/);
    expect(JSON.stringify(err).length).toBeLessThan(3000);
  });

  it('keeps the hint at the end of a message built from a long service message', async () => {
    const err = await caught(() => http.request({ method: 'GET', path: '/v1/face_collections/c1/faces', operation: 'listFaces', notFoundHint: 'collectionId "c1" does not exist' }));
    expect(err).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(err.message.length).toBeLessThanOrEqual(1001);
    expect(err.message).toMatch(/… \(collectionId "c1" does not exist\)$/);
  });
});
