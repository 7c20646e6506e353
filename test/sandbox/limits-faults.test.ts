import { startSandbox, type RunningSandbox } from '../../sandbox';
import { startFixtureServer } from '../support/fixture-server';
import { oversizePng, paddedJpeg } from '../support/images';
import { type Token, fetchToken, multipart, send, visionHeaders } from '../support/vision-http';

let sandbox: RunningSandbox;
let token: Token;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
  await sandbox.reset();
  token = await fetchToken(sandbox.url);
});

const json = { 'content-type': 'application/json' };

describe('request size and media type', () => {
  test('a body above 10485760 bytes gets the plain-text 413, before authorization', async () => {
    const res = await send(sandbox.url + '/v1/detect_faces', {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: Buffer.alloc(10_485_761, 0xff),
    });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('HTTP content length exceeded 10485760 bytes.');
  });

  test('a body of exactly 10485760 bytes is not refused by that rule', async () => {
    const res = await send(sandbox.url + '/v1/detect_faces', {
      method: 'POST',
      headers: { ...visionHeaders(token), 'content-type': 'image/jpeg' },
      body: Buffer.alloc(10_485_760, 0xff),
    });
    expect(res).toMatchObject({ status: 413, json: { message: 'Request Too Long' } });
  });

  test('a valid image of 4 MiB or more is the JSON 413 Request Too Long', async () => {
    const big = oversizePng();
    expect(big.length).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    const res = await send(sandbox.url + '/v1/detect_humans', {
      method: 'POST',
      headers: { ...visionHeaders(token), 'content-type': 'image/png' },
      body: big,
    });
    expect(res).toMatchObject({ status: 413, json: { message: 'Request Too Long' } });
  });

  test('an image URL of 4 MiB or more is the JSON 413, whether or not its size is declared', async () => {
    const big = oversizePng();
    const fixtures = await startFixtureServer({
      '/declared.png': { body: big, contentType: 'image/png' },
      '/chunked.png': { body: big, contentType: 'image/png', chunked: true },
    });
    try {
      for (const path of ['/declared.png', '/chunked.png']) {
        const res = await send(sandbox.url + '/v1/detect_faces', {
          method: 'POST',
          headers: { ...visionHeaders(token), ...json },
          body: JSON.stringify({ image: fixtures.urlOf(path) }),
        });
        expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 413, json: { message: 'Request Too Long' } });
        expect(fixtures.hits.get(path)).toBe(1);
      }
    } finally {
      await fixtures.stop();
    }
  });

  test('for two images the limit is on their total, not on the multipart body around them', async () => {
    const limit = 4 * 1024 * 1024;
    const source = paddedJpeg(2_000_000);
    const target = paddedJpeg(limit - source.length - 5);
    expect(source.length + target.length).toBeLessThan(limit);
    const under = await multipart({ source, target });
    expect(under.body.length).toBeGreaterThanOrEqual(limit);
    const compare = (form: { body: Buffer; contentType: string }) =>
      send(sandbox.url + '/v1/compare_faces', { method: 'POST', headers: { ...visionHeaders(token), 'content-type': form.contentType }, body: form.body });
    // Past the size rule, the grey images reach the model, which finds no face in them.
    const accepted = await compare(under);
    expect(accepted).toMatchObject({ status: 400, json: { error: { code: 'face_not_found' } } });
    const over = await multipart({ source, target: paddedJpeg(limit - source.length) });
    expect(await compare(over)).toMatchObject({ status: 413, json: { message: 'Request Too Long' } });
  });

  test('an unsupported content type is 415 on detection, comparison and collection creation', async () => {
    const headers = { ...visionHeaders(token), 'content-type': 'text/plain' };
    for (const path of ['/v1/detect_faces', '/v1/compare_faces', '/v1/face_collections']) {
      const res = await send(sandbox.url + path, { method: 'POST', headers, body: 'hello' });
      expect(res).toMatchObject({ status: 415, json: { message: 'Unsupported Media Type' } });
    }
    const bare = await send(sandbox.url + '/v1/face_collections', { method: 'POST', headers: visionHeaders(token) });
    expect(bare.status).toBe(415);
  });
});

describe('collections bookkeeping', () => {
  test('create 201, list, beta limit, delete 204, then 404', async () => {
    const headers = { ...visionHeaders(token), ...json };
    const created = await send(sandbox.url + '/v1/face_collections', { method: 'POST', headers });
    expect(created.status).toBe(201);
    const id = (created.json as { collection_id: string }).collection_id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const second = await send(sandbox.url + '/v1/face_collections', { method: 'POST', headers });
    expect(second.status).toBe(400);
    expect(second.json).toMatchObject({ error: { code: 'collection_limit_exceeded' } });

    expect((await send(sandbox.url + '/v1/face_collections', { headers })).json).toEqual({ face_collections: [{ collection_id: id }] });
    expect((await send(`${sandbox.url}/v1/face_collections/${id}/faces`, { headers })).json).toEqual({ faces: [] });

    const deleted = await send(`${sandbox.url}/v1/face_collections/${id}`, { method: 'DELETE', headers: visionHeaders(token) });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    const notFound = { error: { code: 'resource_not_found', message: 'The specified resource does not exist.' } };
    expect(await send(`${sandbox.url}/v1/face_collections/${id}`, { method: 'DELETE', headers })).toMatchObject({ status: 404, json: notFound });
    expect(await send(`${sandbox.url}/v1/face_collections/${id}/faces`, { headers })).toMatchObject({ status: 404, json: notFound });
  });

  test('the collection limit can be raised', async () => {
    const roomy = await startSandbox({ port: 0, collectionLimit: 3 });
    try {
      const headers = { ...visionHeaders(await fetchToken(roomy.url)), ...json };
      const statuses = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await send(roomy.url + '/v1/face_collections', { method: 'POST', headers })).status);
      expect(statuses).toEqual([201, 201, 201, 400]);
    } finally {
      await roomy.stop();
    }
  });

  test('max_results outside 1..1000 is a 400 naming the field, before any image work', async () => {
    const headers = { ...visionHeaders(token), ...json };
    const id = ((await send(sandbox.url + '/v1/face_collections', { method: 'POST', headers })).json as { collection_id: string }).collection_id;
    for (const bad of [0, 1001, 2.5, 'ten']) {
      const res = await send(`${sandbox.url}/v1/compare_faces/${id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ image: 'http://127.0.0.1:9/never-fetched.jpg', max_results: bad }),
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { code: 'invalid_parameter', message: 'max_results must be an integer from 1 to 1000.' } });
    }
  });

  test('an unknown collection in a comparison is 404', async () => {
    const res = await send(`${sandbox.url}/v1/compare_faces/00000000-0000-4000-8000-000000000000`, {
      method: 'POST',
      headers: { ...visionHeaders(token), ...json },
      body: JSON.stringify({ image: 'http://127.0.0.1:9/x.jpg' }),
    });
    expect(res).toMatchObject({ status: 404, json: { error: { code: 'resource_not_found' } } });
  });
});

describe('fault injection', () => {
  const list = () => send(sandbox.url + '/v1/face_collections', { headers: visionHeaders(token) });

  test('a certain throttling fault answers 429 Too Many Requests with Retry-After', async () => {
    sandbox.setFaults({ collections: { tooManyRequests: 1 } });
    const res = await list();
    expect(res).toMatchObject({ status: 429, json: { message: 'Too Many Requests' } });
    expect(res.headers['retry-after']).toBe('0');
  });

  test('each fault kind has its status and message', async () => {
    const cases: [string, number, string][] = [
      ['limitExceeded', 429, 'Limit Exceeded'],
      ['serverError', 500, 'Internal server error'],
      ['timeout', 504, 'Endpoint request timed out'],
    ];
    for (const [kind, status, message] of cases) {
      sandbox.setFaults({ '*': { [kind]: 1 } });
      expect(await list()).toMatchObject({ status, json: { message } });
    }
    sandbox.clearFaults();
    expect((await list()).status).toBe(200);
  });

  test('rates follow the configuration and repeat exactly for a seed', async () => {
    const run = async (): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < 200; i += 1) statuses.push((await list()).status);
      return statuses;
    };
    sandbox.setFaults({ collections: { serverError: 0.3, tooManyRequests: 0.1, seed: 42 } });
    const first = await run();
    sandbox.setFaults({ collections: { serverError: 0.3, tooManyRequests: 0.1, seed: 42 } });
    const second = await run();
    expect(second).toEqual(first);
    const count = (status: number) => first.filter((s) => s === status).length;
    // Expected 60 and 20 of 200; the bounds are several standard deviations wide.
    expect(count(500)).toBeGreaterThan(35);
    expect(count(500)).toBeLessThan(85);
    expect(count(429)).toBeGreaterThan(5);
    expect(count(429)).toBeLessThan(40);
    expect(count(200)).toBe(200 - count(500) - count(429));
  });

  test('an endpoint rule leaves other endpoints alone; the token endpoint can fail too', async () => {
    sandbox.setFaults({ token: { serverError: 1 } });
    expect((await list()).status).toBe(200);
    await expect(fetchToken(sandbox.url)).rejects.toThrow('500');
  });

  test('latency holds a request while others are answered, and does not fail it', async () => {
    sandbox.setFaults({ collections: { latencyMs: 60_000 } });
    let settled = false;
    const slow = list().then((res) => {
      settled = true;
      return res;
    });
    for (let i = 0; i < 10_000 && sandbox.stats().byEndpoint.collections !== 1; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sandbox.stats().byEndpoint.collections).toBe(1);
    // A whole exchange with an endpoint without latency completes while the delayed one waits.
    await fetchToken(sandbox.url);
    expect(settled).toBe(false);
    // Clearing the faults ends the delay; the request then goes on like any other.
    sandbox.clearFaults();
    expect(await slow).toMatchObject({ status: 200, json: { face_collections: [] } });
  });

  test('stop() ends a request held by a latency fault', async () => {
    const slow = await startSandbox({ port: 0 });
    const slowToken = await fetchToken(slow.url);
    slow.setFaults({ collections: { latencyMs: 60_000 } });
    const pending = send(slow.url + '/v1/face_collections', { headers: visionHeaders(slowToken) }).then(
      (res) => res.status,
      () => 'connection closed',
    );
    // Let the request reach the server before stopping it.
    for (let i = 0; i < 10_000 && slow.stats().byEndpoint.collections !== 1; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(slow.stats().byEndpoint.collections).toBe(1);
    await slow.stop();
    expect(await pending).toBe('connection closed');
  });

  test('the admin path validates and applies a configuration; {} clears it', async () => {
    const bad = await send(sandbox.url + '/_sandbox/faults', { method: 'POST', headers: json, body: JSON.stringify({ collections: { serverError: 2 } }) });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { message: string } }).error.message).toContain('faults.collections.serverError');
    const unknown = await send(sandbox.url + '/_sandbox/faults', { method: 'POST', headers: json, body: JSON.stringify({ '*': { explode: 1 } }) });
    expect(unknown.status).toBe(400);

    expect((await send(sandbox.url + '/_sandbox/faults', { method: 'POST', headers: json, body: JSON.stringify({ collections: { serverError: 1 } }) })).status).toBe(200);
    expect((await list()).status).toBe(500);
    expect((await send(sandbox.url + '/_sandbox/faults', { method: 'POST', headers: json, body: '{}' })).status).toBe(200);
    expect((await list()).status).toBe(200);
  });

  test('setFaults() rejects a configuration whose rates add up above 1', () => {
    expect(() => sandbox.setFaults({ faces: { serverError: 0.6, timeout: 0.6 } })).toThrow(/faults\.faces/);
  });
});

describe('stats and reset', () => {
  test('every /v1 request is counted by endpoint; reset forgets state, tokens, faults and counters', async () => {
    const headers = { ...visionHeaders(token), ...json };
    await send(sandbox.url + '/v1/face_collections', { method: 'POST', headers });
    await send(sandbox.url + '/v1/detect_faces', { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: 'x' });
    sandbox.setFaults({ collections: { serverError: 1 } });

    const stats = (await send(sandbox.url + '/_sandbox/stats')).json;
    expect(stats).toEqual({ requests: 3, byEndpoint: { token: 1, collections: 1, detect_faces: 1 }, tokensIssued: 1 });
    expect(sandbox.stats()).toEqual(stats);

    expect((await send(sandbox.url + '/_sandbox/reset', { method: 'POST' })).status).toBe(200);
    expect(sandbox.stats()).toEqual({ requests: 0, byEndpoint: {}, tokensIssued: 0 });
    expect((await send(sandbox.url + '/v1/face_collections', { headers })).status).toBe(401);
    const fresh = await fetchToken(sandbox.url);
    expect((await send(sandbox.url + '/v1/face_collections', { headers: visionHeaders(fresh) })).json).toEqual({ face_collections: [] });
  });

  test('an unknown admin action is 404 and an unknown /v1 path is 404', async () => {
    expect((await send(sandbox.url + '/_sandbox/nothing/here', { method: 'POST' })).status).toBe(404);
    expect((await send(sandbox.url + '/v1/nothing', { headers: visionHeaders(token) })).status).toBe(404);
  });
});
