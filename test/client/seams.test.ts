import { Agent, request, type Dispatcher } from 'undici';
import { STREAMING_SCOPES, requestToken } from '../../shared/auth';
import { ApiError, isAbortError } from '../../shared/errors';
import { HttpClient, type HttpTransport, type TransportRequest } from '../../shared/http';
import { downloadImage } from '../../shared/image';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server';
import { astronautJpeg, tinyJpeg } from '../support/images';
import { startStandIn } from '../support/stand-in';
import { CLIENT_ID, CLIENT_SECRET, caught, startHarness, type Harness } from './harness';

/** A real undici Agent that counts what it dispatches: proof that a client used it. */
class CountingAgent extends Agent {
  readonly origins: string[] = [];

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.origins.push(String(options.origin));
    return super.dispatch(options, handler);
  }
}

/** A host transport of its own (plain undici, no code of ours) that records what it is given. */
function recordingTransport(seen: TransportRequest[], authorise?: () => Promise<Record<string, string>>): HttpTransport {
  return async (req) => {
    seen.push(req);
    const extra = authorise ? await authorise() : {};
    const res = await request(req.url, { method: req.method as Dispatcher.HttpMethod, headers: { ...req.headers, ...extra }, body: req.body, signal: req.signal });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
}

/** Resolves once `predicate` holds, checking on every turn of the event loop. */
async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200_000 && !predicate(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  if (!predicate()) throw new Error('condition not reached');
}

const RETRY = { retries: 2, baseDelayMs: 1, maxDelayMs: 5 };

describe('host transport', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, RETRY);
  });
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.resetAndWarm();
  });

  it('gets every body as a Buffer or string, multipart already serialised with its boundary', async () => {
    const seen: TransportRequest[] = [];
    const client = new VisionClient({ visionUrl: h.sandbox.url, tokens: h.tokens, transport: recordingTransport(seen), retry: RETRY });
    // Both images are bytes: a multipart body. No face in them: the service's 400 is mapped as usual.
    const err = await caught(() => client.compareFaces(tinyJpeg(), tinyJpeg(40, 40)));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: 'face_not_found', retryable: false, operation: 'compareFaces' });
    const multipart = seen[0];
    expect(Buffer.isBuffer(multipart.body)).toBe(true);
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(multipart.headers['content-type'])?.[1];
    expect(boundary).toBeDefined();
    expect((multipart.body as Buffer).toString('latin1')).toContain(`--${boundary}`);
    expect(multipart.headers.authorization).toMatch(/^Bearer /);
    expect(multipart.timeoutMs).toBeGreaterThan(0);
    await client.detectFaces(tinyJpeg());
    expect(Buffer.isBuffer(seen[1].body)).toBe(true);
    expect(seen[1].headers['content-type']).toBe('image/jpeg');
    await client.close();
  });

  it('keeps the core\'s retries and error mapping', async () => {
    const seen: TransportRequest[] = [];
    const client = new VisionClient({ visionUrl: h.sandbox.url, tokens: h.tokens, transport: recordingTransport(seen), retry: RETRY });
    h.sandbox.setFaults({ collections: { serverError: 1 } });
    const err = await caught(() => client.listCollections());
    expect(err).toMatchObject({ name: 'ApiError', status: 500, retryable: true, serviceMessage: 'Internal server error' });
    expect(seen).toHaveLength(RETRY.retries + 1);
    h.sandbox.clearFaults();
    const missing = await caught(() => client.listFaces('no-such-collection'));
    expect(missing).toMatchObject({ name: 'ApiError', status: 404, code: 'resource_not_found' });
    expect(missing.message).toContain('no-such-collection');
    // A transport that throws: a network error, retried, then reported without its text of origin.
    let calls = 0;
    const broken = new VisionClient({
      visionUrl: h.sandbox.url,
      tokens: h.tokens,
      retry: RETRY,
      transport: () => {
        calls += 1;
        return Promise.reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      },
    });
    await expect(broken.listCollections()).rejects.toMatchObject({ name: 'ApiError', code: 'ECONNRESET', retryable: true, status: undefined });
    expect(calls).toBe(RETRY.retries + 1);
    await Promise.all([client.close(), broken.close()]);
  });

  it('authorises requests itself when no token provider is given', async () => {
    const seen: TransportRequest[] = [];
    const token = await requestToken({ authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: STREAMING_SCOPES });
    const rooms = new StreamingClient({
      sfuUrl: h.sandbox.url,
      transport: recordingTransport(seen, async () => ({ authorization: `Bearer ${token.accessToken}` })),
      retry: RETRY,
    });
    const room = await rooms.createRoom();
    await expect(rooms.getRoom(room.id)).resolves.toMatchObject({ id: room.id });
    await rooms.deleteRoom(room.id);
    expect(seen.map((r) => r.headers.authorization)).toEqual([undefined, undefined, undefined]);
    await rooms.close();
  });

  it('reports a transport answer without a status as an invalid response, not retried', async () => {
    let calls = 0;
    const odd = (() => {
      calls += 1;
      return Promise.resolve({ body: '{}' });
    }) as unknown as HttpTransport;
    const client = new VisionClient({ visionUrl: h.sandbox.url, tokens: h.tokens, transport: odd, retry: RETRY });
    await expect(client.listCollections()).rejects.toMatchObject({ name: 'ApiError', code: 'invalid_response', retryable: false });
    expect(calls).toBe(1);
    await client.close();
  });

  it('turns a host token provider\'s own failure into an ApiError', async () => {
    const failing = { getToken: () => Promise.reject(new Error('vault unreachable')), invalidate: () => undefined };
    const client = new VisionClient({ visionUrl: h.sandbox.url, tokens: failing, retry: RETRY });
    const before = h.requests();
    await expect(client.listCollections()).rejects.toMatchObject({ name: 'ApiError', code: 'token_provider_failed', operation: 'getToken', retryable: false });
    expect(h.requests()).toBe(before);
    await client.close();
  });

  it('refuses a client with neither tokens nor a transport, or a transport that is not a function', () => {
    expect(() => new HttpClient({ baseUrl: h.sandbox.url, sendApiKey: false })).toThrow(expect.objectContaining({ name: 'InputError', field: 'tokens' }));
    const bad = { sfuUrl: h.sandbox.url, transport: 'fetch' } as unknown as ConstructorParameters<typeof StreamingClient>[0];
    expect(() => new StreamingClient(bad)).toThrow(expect.objectContaining({ name: 'InputError', field: 'transport' }));
  });
});

describe('dispatcher', () => {
  let h: Harness;
  let fixtures: FixtureServer;
  beforeAll(async () => {
    h = await startHarness({}, RETRY);
    fixtures = await startFixtureServer({ '/face.jpg': { body: tinyJpeg(48, 48), contentType: 'image/jpeg' } });
  });
  afterAll(async () => {
    await fixtures.stop();
    await h.stop();
  });

  it('is the one a client is given: tokens, API calls and image downloads all go through it', async () => {
    const agent = new CountingAgent();
    try {
      const credentials = { authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, dispatcher: agent, retry: RETRY };
      const vision = new VisionClient({ visionUrl: h.sandbox.url, ...credentials });
      const rooms = new StreamingClient({ sfuUrl: h.sandbox.url, ...credentials });
      await vision.listCollections();
      // Bytes against a URL: the client downloads the URL itself, then sends two files.
      await caught(() => vision.compareFaces(tinyJpeg(), fixtures.urlOf('/face.jpg')));
      await rooms.listRooms();
      await requestToken({ ...credentials, scopes: STREAMING_SCOPES });
      const sandbox = new URL(h.sandbox.url).origin;
      expect(agent.origins.filter((o) => o === fixtures.url)).toHaveLength(1);
      // vision: token, list, compare; streaming: token, list; one-shot token.
      expect(agent.origins.filter((o) => o === sandbox)).toHaveLength(6);
      expect(fixtures.hits.get('/face.jpg')).toBe(1);
      await Promise.all([vision.close(), rooms.close()]);
      // Closing the clients leaves the caller's dispatcher open.
      expect(agent.closed).toBe(false);
    } finally {
      await agent.close();
    }
  });
});

describe('cancellation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, RETRY);
  });
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.resetAndWarm();
  });
  afterEach(() => {
    // Ends the sandbox's delays still running.
    h.sandbox.clearFaults();
  });

  it('sends nothing when the signal has already fired', async () => {
    const before = h.requests();
    await expect(h.client.detectFaces(tinyJpeg(), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED', retryable: false });
    await expect(h.client.compareWithCollection('c', tinyJpeg(), { maxResults: 3, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(h.requests()).toBe(before);
  });

  it('ends a request in flight at once, without retrying it', async () => {
    h.sandbox.setFaults({ detect_faces: { latencyMs: 60_000 } });
    const controller = new AbortController();
    const call = h.client.detectFaces(astronautJpeg(), { signal: controller.signal });
    await until(() => h.hits('detect_faces') === 1);
    controller.abort();
    const err = await caught(() => call);
    expect(isAbortError(err)).toBe(true);
    expect(err).toMatchObject({ operation: 'detectFaces', retryable: false });
    expect(h.hits('detect_faces')).toBe(1);
  });

  it('ends the backoff between retries at once', async () => {
    // Waits of up to a minute between attempts: only an abort that cuts the wait lets the test end.
    const client = new VisionClient({ visionUrl: h.sandbox.url, tokens: h.tokens, retry: { retries: 50, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    h.sandbox.setFaults({ collections: { serverError: 1 } });
    const controller = new AbortController();
    const call = client.listCollections({ signal: controller.signal });
    await until(() => h.hits('collections') >= 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const attempts = h.hits('collections');
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED' });
    expect(h.hits('collections')).toBe(attempts);
    await client.close();
  });

  it('ends a wait for a token, and a streaming call', async () => {
    h.sandbox.setFaults({ token: { latencyMs: 60_000 }, rooms: { latencyMs: 60_000 } });
    h.tokens.invalidate((await h.tokens.getToken()).accessToken);
    const listed = h.hits('collections');
    const controller = new AbortController();
    const call = h.client.listCollections({ signal: controller.signal });
    await until(() => h.hits('token') >= 1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED' });
    expect(h.hits('collections')).toBe(listed);

    h.sandbox.clearFaults();
    h.sandbox.setFaults({ rooms: { latencyMs: 60_000 } });
    const rooms = new StreamingClient({ sfuUrl: h.sandbox.url, authUrl: h.sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, retry: RETRY });
    const stop = new AbortController();
    const list = rooms.listRooms('all', { signal: stop.signal });
    await expect(rooms.ticketSource('nowhere')(AbortSignal.abort())).rejects.toMatchObject({ code: 'ABORTED', operation: 'createTicket' });
    await until(() => h.hits('rooms') >= 1);
    stop.abort();
    await expect(list).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED', operation: 'listRooms' });
    await rooms.close();
  });

  it('rejects at once even when a host transport ignores the signal', async () => {
    let started = 0;
    const deaf: HttpTransport = () => {
      started += 1;
      return new Promise(() => undefined);
    };
    const client = new VisionClient({ visionUrl: h.sandbox.url, tokens: h.tokens, transport: deaf, retry: RETRY });
    const controller = new AbortController();
    const call = client.listCollections({ signal: controller.signal });
    await until(() => started === 1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED' });
    await client.close();
  });

  it('ends an image download, standalone or inside a comparison', async () => {
    // An image host that sends the headers, then never the body.
    const slow = await startStandIn((req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '100000' });
      res.write(Buffer.from([0xff, 0xd8, 0xff]));
    });
    try {
      const limits = { maxBytes: 1_000_000, timeoutMs: 60_000 };
      const controller = new AbortController();
      const download = downloadImage(`${slow.url}/a.jpg`, 'image', limits, { signal: controller.signal, allowPrivateAddresses: true });
      await until(() => slow.count('/a.jpg') === 1);
      controller.abort();
      await expect(download).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED', operation: 'downloadImage' });

      const before = h.hits('compare_faces');
      const inside = new AbortController();
      const compare = h.client.compareFaces(tinyJpeg(), `${slow.url}/b.jpg`, { signal: inside.signal });
      await until(() => slow.count('/b.jpg') === 1);
      inside.abort();
      await expect(compare).rejects.toMatchObject({ name: 'ApiError', code: 'ABORTED', operation: 'compareFaces' });
      expect(h.hits('compare_faces')).toBe(before);
    } finally {
      await slow.stop();
    }
  });

  it('refuses a signal that is not an AbortSignal', async () => {
    const fake = { signal: { aborted: true } } as unknown as { signal: AbortSignal };
    await expect(h.client.listCollections(fake)).rejects.toMatchObject({ name: 'InputError', field: 'signal' });
  });
});

describe('multipart size', () => {
  it('counts the serialised form against the body limit before sending', async () => {
    const standIn = await startStandIn((req, res) => res.end('{}'));
    try {
      const client = new HttpClient({ baseUrl: standIn.url, sendApiKey: false, transport: async () => ({ status: 200, headers: {}, body: '{}' }) });
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(10_485_760)]), 'big.jpg');
      await expect(client.request({ method: 'POST', path: '/v1/x', body: form, operation: 'x' })).rejects.toMatchObject({ name: 'InputError', field: 'body' });
      await client.close();
    } finally {
      await standIn.stop();
    }
  });
});
