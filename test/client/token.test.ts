import { ApiError, InputError } from '../../shared/errors';
import { STREAMING_SCOPES, TokenSource, VISION_SCOPES, acquireTokenSource, requestToken, type TokenProvider } from '../../shared/auth';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { tinyJpeg } from '../support/images';
import { answerJson, startStandIn } from '../support/stand-in';
import { CLIENT_ID, CLIENT_SECRET, FAST_RETRY, caught, closedPort, startHarness, type Harness } from './harness';

describe('token source against the sandbox', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.sandbox.reset();
  });

  const source = (extra: Partial<ConstructorParameters<typeof TokenSource>[0]> = {}) =>
    new TokenSource({ authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: FAST_RETRY, ...extra });

  it('sends exactly one token request for 50 concurrent callers', async () => {
    const tokens = source();
    const results = await Promise.all(Array.from({ length: 50 }, () => tokens.getToken()));
    expect(new Set(results.map((t) => t.accessToken)).size).toBe(1);
    expect(results[0].apiKey).toEqual(expect.any(String));
    expect(h.sandbox.stats().tokensIssued).toBe(1);
    expect(h.hits('token')).toBe(1);
    // Cached: later callers do not ask again.
    await tokens.getToken();
    expect(h.hits('token')).toBe(1);
    await tokens.close();
  });

  it('shares one failure among the waiters and does not cache it', async () => {
    const tokens = source({ retry: { retries: 0 } });
    h.sandbox.setFaults({ token: { serverError: 1 } });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => tokens.getToken()));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    const reasons = new Set(outcomes.map((o) => (o as PromiseRejectedResult).reason));
    expect(reasons.size).toBe(1);
    const [reason] = reasons;
    expect(reason).toBeInstanceOf(ApiError);
    expect(reason).toMatchObject({ status: 500, retryable: true, operation: 'getToken' });
    expect(h.hits('token')).toBe(1);
    h.sandbox.clearFaults();
    await expect(tokens.getToken()).resolves.toMatchObject({ accessToken: expect.any(String) });
    expect(h.hits('token')).toBe(2);
    await tokens.close();
  });

  it('shares one source (one token request) between users of the same credentials', async () => {
    const options = { authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: FAST_RETRY };
    const a = acquireTokenSource(options);
    const b = acquireTokenSource({ ...options, authUrl: `${h.sandbox.url}/v1`, scopes: [...VISION_SCOPES].reverse() });
    const other = acquireTokenSource({ ...options, scopes: ['sfu.api.ricoh/v1/sfu'] });
    expect(b.tokens).toBe(a.tokens);
    expect(other.tokens).not.toBe(a.tokens);
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).tokens.getToken()));
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1);
    expect(h.hits('token')).toBe(1);
    await a.release();
    await a.release();
    // Still held by b: the cached token is still served.
    await b.tokens.getToken();
    expect(h.hits('token')).toBe(1);
    await b.release();
    await expect(b.tokens.getToken()).rejects.toMatchObject({ code: 'closed' });
    const again = acquireTokenSource(options);
    expect(again.tokens).not.toBe(a.tokens);
    await again.release();
    await other.release();
  });

  it('does not lend a shared source closed through its own close(), and checks every caller\'s options', async () => {
    const options = { authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: FAST_RETRY };
    const first = acquireTokenSource(options);
    await first.tokens.close();
    const second = acquireTokenSource(options);
    expect(second.tokens).not.toBe(first.tokens);
    expect(second.tokens.closed).toBe(false);
    await expect(second.tokens.getToken()).resolves.toMatchObject({ accessToken: expect.any(String) });
    // Releasing the closed one does not close the source lent since.
    await first.release();
    expect(second.tokens.closed).toBe(false);
    const third = acquireTokenSource(options);
    expect(third.tokens).toBe(second.tokens);
    // Same credentials, so the same key, but a bad setting is still refused.
    expect(() => acquireTokenSource({ ...options, renewBeforeSeconds: -1 })).toThrow(expect.objectContaining({ name: 'InputError', field: 'renewBeforeSeconds' }));
    expect(() => acquireTokenSource({ ...options, clientSecret: '' })).toThrow(expect.objectContaining({ name: 'InputError', field: 'clientSecret' }));
    await second.release();
    await third.release();
    expect(third.tokens.closed).toBe(true);
  });

  it('neither returns nor caches a token that arrives after close()', async () => {
    const tokens = source();
    // Held 300 ms by the sandbox, so the request is surely still in flight when the source closes.
    h.sandbox.setFaults({ token: { latencyMs: 300 } });
    const pending = tokens.getToken();
    for (let i = 0; i < 10_000 && h.hits('token') === 0; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(h.hits('token')).toBe(1);
    expect(tokens.closed).toBe(false);
    await tokens.close();
    expect(tokens.closed).toBe(true);
    await expect(pending).rejects.toMatchObject({ name: 'ApiError', code: 'closed', operation: 'getToken' });
    await expect(tokens.getToken()).rejects.toMatchObject({ code: 'closed' });
    // close() cuts the request in flight; whether the server still issued its token does not matter.
    expect(h.sandbox.stats().tokensIssued).toBeLessThanOrEqual(1);
    expect(h.hits('token')).toBe(1);
  });

  it('accepts the auth address with or without /v1 and with a trailing slash', async () => {
    for (const authUrl of [`${h.sandbox.url}/`, `${h.sandbox.url}/v1`, `${h.sandbox.url}/v1/token`]) {
      const tokens = source({ authUrl });
      await expect(tokens.getToken()).resolves.toMatchObject({ accessToken: expect.any(String) });
      await tokens.close();
    }
  });

  it('renews once after the service refuses a token (401), transparently', async () => {
    await h.client.listCollections();
    const issued = h.sandbox.stats().tokensIssued;
    const before = h.requests();
    h.sandbox.expireTokens();
    await expect(h.client.listCollections()).resolves.toEqual(expect.any(Array));
    expect(h.sandbox.stats().tokensIssued).toBe(issued + 1);
    // The refused call, one token request, the repeated call.
    expect(h.requests() - before).toBe(3);
  });

  it('reports 401 when renewing does not help, without looping', async () => {
    // A token issued for streaming only is refused by the vision endpoints every time. The provider
    // hides its scopes, so the client cannot refuse the call before sending it.
    const streaming = new TokenSource({ authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: ['sfu.api.ricoh/v1/sfu'] });
    const unscoped: TokenProvider = { getToken: (signal) => streaming.getToken(signal), invalidate: (t) => streaming.invalidate(t) };
    const vision = new VisionClient({ visionUrl: h.sandbox.url, tokens: unscoped, retry: FAST_RETRY });
    const before = h.requests();
    const err = await caught(() => vision.listCollections());
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, retryable: false, operation: 'listCollections' });
    expect(err.message).toMatch(/refused even after renewing it/);
    // Token, refused call, token again, refused call: renewed once, never retried.
    expect(h.requests() - before).toBe(4);
    expect(h.hits('token')).toBe(2);
    expect(h.hits('collections')).toBe(2);
    await vision.close();
    await streaming.close();
  });
});

describe('token renewal ahead of expiry', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tokenLifetimeSeconds: 1 });
  });
  afterAll(async () => {
    await h.stop();
  });

  it('renews a short-lived token a fifth of its life before it expires', async () => {
    // The client's clock is driven by hand so the renewal point is crossed exactly, however slow
    // the machine; the sandbox keeps the real clock (it captured Date.now when it started).
    const start = Date.now();
    let clock = start;
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      const first = await h.tokens.getToken();
      expect(first.expiresAt).toBe(start + 1000);
      clock = start + 799;
      expect((await h.tokens.getToken()).accessToken).toBe(first.accessToken);
      expect(h.sandbox.stats().tokensIssued).toBe(1);
      clock = start + 800;
      const second = await h.tokens.getToken();
      expect(second.accessToken).not.toBe(first.accessToken);
      expect(second.expiresAt).toBe(start + 1800);
      expect(h.sandbox.stats().tokensIssued).toBe(2);
      await expect(h.client.listCollections()).resolves.toEqual(expect.any(Array));
    } finally {
      spy.mockRestore();
    }
  });
});

describe('credential failures', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  it('says the client id or secret was rejected, without the secret', async () => {
    const wrong = 'wrong-secret-value-123';
    const client = new VisionClient({ authUrl: h.sandbox.url, visionUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: wrong, retry: FAST_RETRY });
    const err = await caught(() => client.listCollections());
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, retryable: false, operation: 'getToken' });
    expect(err.message).toMatch(/client id or client secret was rejected/);
    expect(JSON.stringify(err) + err.message + err.stack).not.toContain(wrong);
    await client.close();
  });

  it('keeps the status of a 400 invalid_client or a 403 from the token endpoint', async () => {
    const refusals: Array<[number, unknown]> = [
      [400, { error: 'invalid_client', error_description: 'Client authentication failed.' }],
      [403, { message: 'Forbidden' }],
    ];
    for (const [status, body] of refusals) {
      const standIn = await startStandIn((req, res) => answerJson(res, status, body), { handleToken: true });
      const tokens = new TokenSource({ authUrl: standIn.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: FAST_RETRY });
      try {
        const err = await caught(() => tokens.getToken());
        expect(err).toBeInstanceOf(ApiError);
        expect(err).toMatchObject({ status, retryable: false, operation: 'getToken' });
        expect(err.message).toMatch(new RegExp(`client id or client secret was rejected by .*\\(HTTP ${status}: `));
        expect(standIn.count('/v1/token')).toBe(1);
      } finally {
        await tokens.close();
        await standIn.stop();
      }
    }
  });

  it('reports an unreachable authorization server as a retryable network error', async () => {
    const port = await closedPort();
    const tokens = new TokenSource({ authUrl: `http://127.0.0.1:${port}`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    const err = await caught(() => tokens.getToken());
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: undefined, code: 'ECONNREFUSED', retryable: true });
    expect(err.message).toContain(`127.0.0.1:${port}`);
    await tokens.close();
  });

  it('refuses missing credentials before sending anything', () => {
    const before = h.requests();
    for (const [field, opts] of [
      ['clientId', { clientId: '', clientSecret: 'x' }],
      ['clientSecret', { clientId: 'x', clientSecret: '' }],
      ['clientSecret', { clientId: 'x', clientSecret: '   ' }],
      ['authUrl', { clientId: 'x', clientSecret: 'y', authUrl: 'not a url' }],
    ] as const) {
      let err: unknown;
      try {
        new TokenSource({ authUrl: h.sandbox.url, scopes: VISION_SCOPES, ...opts });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).field).toBe(field);
      expect((err as InputError).message).toContain(field);
    }
    expect(h.requests()).toBe(before);
  });
});

describe('token providers, scopes and one-shot tokens', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.sandbox.reset();
  });

  const source = (extra: Partial<ConstructorParameters<typeof TokenSource>[0]> = {}) =>
    new TokenSource({ authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: FAST_RETRY, ...extra });

  it('gives a caller whose settings differ its own shared source, never another caller\'s settings', async () => {
    const options = { authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry: FAST_RETRY };
    const base = acquireTokenSource(options);
    const same = acquireTokenSource({ ...options, retry: { ...FAST_RETRY } });
    const leases = [
      acquireTokenSource({ ...options, retry: { ...FAST_RETRY, retries: 0 } }),
      acquireTokenSource({ ...options, renewBeforeSeconds: 60 }),
      acquireTokenSource({ ...options, timeoutMs: 1234 }),
    ];
    expect(same.tokens).toBe(base.tokens);
    for (const lease of leases) expect(lease.tokens).not.toBe(base.tokens);
    expect(new Set(leases.map((l) => l.tokens)).size).toBe(leases.length);
    for (const lease of [base, same, ...leases]) await lease.release();
  });

  it('refuses a call its provider\'s scopes do not cover, naming them, before sending', async () => {
    const streamingOnly = source({ scopes: STREAMING_SCOPES });
    const visionOnly = source({ scopes: ['ips.api.ricoh/v1/detect_faces'] });
    const vision = new VisionClient({ visionUrl: h.sandbox.url, tokens: streamingOnly });
    const narrow = new VisionClient({ visionUrl: h.sandbox.url, tokens: visionOnly });
    const rooms = new StreamingClient({ sfuUrl: h.sandbox.url, tokens: visionOnly });
    const before = h.requests();
    for (const call of [() => vision.listCollections(), () => narrow.detectHumans(tinyJpeg()), () => rooms.listRooms()]) {
      const err = await caught(call);
      expect(err).toBeInstanceOf(InputError);
      expect(err).toMatchObject({ field: 'tokens', code: 'invalid_input' });
      expect(err.message).toMatch(/needs the scope \S+, but the token provider's scopes are: /);
    }
    expect((await caught(() => vision.detectFaces(tinyJpeg()))).message).toContain('sfu.api.ricoh/v1/sfu');
    expect(h.requests()).toBe(before);
    await Promise.all([vision.close(), narrow.close(), rooms.close(), streamingOnly.close(), visionOnly.close()]);
  });

  it('requestToken fetches one token per call and caches nothing', async () => {
    const options = { authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES };
    const first = await requestToken(options);
    const second = await requestToken(options);
    expect(first).toMatchObject({ accessToken: expect.any(String), apiKey: expect.any(String), expiresInS: 3600 });
    expect(first.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(h.hits('token')).toBe(2);
    const refused = await caught(() => requestToken({ ...options, clientSecret: 'wrong-secret' }));
    expect(refused).toMatchObject({ name: 'ApiError', status: 401, code: 'invalid_client', retryable: false });
    await expect(requestToken({ ...options, signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED' });
    expect(() => requestToken({ ...options, scopes: 'a b' as unknown as string[] })).toThrow(expect.objectContaining({ field: 'scopes' }));
  });

  it('ends one caller\'s wait on abort while the shared request goes on for the others', async () => {
    const tokens = source();
    h.sandbox.setFaults({ token: { latencyMs: 400 } });
    const controller = new AbortController();
    const aborted = tokens.getToken(controller.signal);
    const patient = tokens.getToken();
    for (let i = 0; i < 10_000 && h.hits('token') === 0; i += 1) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED', retryable: false, operation: 'getToken' });
    await expect(patient).resolves.toMatchObject({ accessToken: expect.any(String) });
    expect(h.hits('token')).toBe(1);
    await tokens.close();
  });
});
