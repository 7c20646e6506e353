import { ApiError, InputError } from '../../shared/errors';
import { backoffDelay, parseErrorBody, parseRetryAfter, parseServiceBase, undiciTransport } from '../../shared/http';
import { responseError } from '../../shared/http/error-body';
import { VisionClient } from '../../shared/vision';

describe('error bodies', () => {
  it('reads both JSON shapes and the plain-text 413', () => {
    expect(parseErrorBody('{"message":"Unsupported Media Type"}', 415)).toEqual({ message: 'Unsupported Media Type', code: undefined });
    expect(parseErrorBody('{"error":{"code":"resource_not_found","message":"The specified resource does not exist."}}', 404)).toEqual({
      message: 'The specified resource does not exist.',
      code: 'resource_not_found',
    });
    expect(parseErrorBody('HTTP content length exceeded 10485760 bytes.', 413)).toEqual({ message: 'HTTP content length exceeded 10485760 bytes.' });
    expect(parseErrorBody('', 502)).toEqual({ message: 'HTTP 502' });
    expect(parseErrorBody('{"error":"invalid_client","error_description":"bad"}', 401)).toEqual({ message: 'bad', code: 'invalid_client' });
  });

  it('tells throttling from quota exhaustion', () => {
    const throttled = responseError('detectFaces', 429, '{"message":"Too Many Requests"}');
    expect(throttled).toBeInstanceOf(ApiError);
    expect(throttled.retryable).toBe(true);
    const quota = responseError('detectFaces', 429, '{"message":"Limit Exceeded"}');
    expect(quota.retryable).toBe(false);
    expect(quota.message).toMatch(/quota exhausted/);
    expect(responseError('x', 500, '{"error":{"code":"time_out","message":"t"}}')).toMatchObject({ retryable: true, code: 'time_out', status: 500 });
    expect(responseError('x', 404, '{}').retryable).toBe(false);
  });
});

describe('Retry-After and backoff', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('draws full jitter under an exponential bound, with Retry-After as a floor', () => {
    const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(0, policy, undefined, () => 0.999)).toBeCloseTo(99.9);
    expect(backoffDelay(3, policy, undefined, () => 0.5)).toBe(400);
    expect(backoffDelay(10, policy, undefined, () => 0.999)).toBeCloseTo(999);
    expect(backoffDelay(0, policy, undefined, () => 0)).toBe(0);
    expect(backoffDelay(0, policy, 700, () => 0)).toBe(700);
    // A Retry-After is a floor, not capped: the retry loop refuses waits above maxDelayMs instead.
    expect(backoffDelay(0, policy, 60_000, () => 0)).toBe(60_000);
    expect(backoffDelay(3, policy, 300, () => 0.5)).toBe(400);
  });
});

describe('retry policy', () => {
  it('refuses a bad setting with an InputError naming retry.<key>, before anything is sent', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ retries: -1 }, 'retry.retries'],
      [{ baseDelayMs: Number.NaN }, 'retry.baseDelayMs'],
      [{ maxDelayMs: Infinity }, 'retry.maxDelayMs'],
      [{ retries: '3' }, 'retry.retries'],
    ];
    for (const [retry, field] of cases) {
      let caught: unknown;
      try {
        new VisionClient({ visionUrl: 'http://127.0.0.1:9', authUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: 'secret', retry });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InputError);
      expect(caught).toMatchObject({ field, limit: 'finite number >= 0' });
      expect((caught as Error).message).toMatch(new RegExp(`^${field.replace('.', '\\.')} must be a finite number >= 0`));
    }
  });
});

describe('service base addresses', () => {
  it('accepts a base with or without /v1 and keeps a path prefix', () => {
    expect(parseServiceBase('https://ips.api.ricoh/v1', 'visionUrl')).toEqual({ origin: 'https://ips.api.ricoh', prefix: '' });
    expect(parseServiceBase('https://auth.api.ricoh/', 'authUrl')).toEqual({ origin: 'https://auth.api.ricoh', prefix: '' });
    expect(parseServiceBase('http://127.0.0.1:9/proxy/v1/token', 'authUrl')).toEqual({ origin: 'http://127.0.0.1:9', prefix: '/proxy' });
  });

  it('refuses what is not an http(s) base', () => {
    for (const bad of ['', 'nope', 'ftp://h', 'https://u:p@h', 'https://h/?q=1']) {
      expect(() => parseServiceBase(bad, 'authUrl')).toThrow(InputError);
    }
  });
});

describe('undiciTransport', () => {
  it('hands the dispatcher the origin and the path with its query, parsed or not', async () => {
    const seen: Array<{ origin: unknown; path: unknown }> = [];
    const dispatcher = {
      request: async (options: { origin: unknown; path: unknown }) => {
        seen.push({ origin: options.origin, path: options.path });
        return { statusCode: 204, headers: {}, body: { text: async () => '' } };
      },
    } as unknown as Parameters<typeof undiciTransport>[0];
    const send = undiciTransport(dispatcher);
    for (const url of ['http://127.0.0.1:8080/v1/rooms?state=onair', 'https://host.example/base/v1/x', 'http://127.0.0.1:8080?a=1', 'http://127.0.0.1:8080']) {
      await send({ method: 'GET', url, headers: {}, timeoutMs: 1000 });
    }
    expect(seen).toEqual([
      { origin: 'http://127.0.0.1:8080', path: '/v1/rooms?state=onair' },
      { origin: 'https://host.example', path: '/base/v1/x' },
      { origin: 'http://127.0.0.1:8080', path: '/?a=1' },
      { origin: 'http://127.0.0.1:8080', path: '/' },
    ]);
  });
});
