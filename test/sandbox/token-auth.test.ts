import { startSandbox, type RunningSandbox } from '../../sandbox';
import { SANDBOX_CLIENT, VISION_SCOPE, fetchToken, send, visionHeaders } from '../support/vision-http';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.stop());
beforeEach(() => sandbox.reset());

function tokenRequest(body: string, auth = `${SANDBOX_CLIENT.id}:${SANDBOX_CLIENT.secret}`, type = 'application/x-www-form-urlencoded') {
  return send(sandbox.url + '/v1/token', {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(auth).toString('base64'), 'content-type': type },
    body,
  });
}

describe('token endpoint', () => {
  test('client credentials give a bearer token, an API key and the granted scopes', async () => {
    const res = await tokenRequest(`grant_type=client_credentials&scope=${encodeURIComponent(VISION_SCOPE)}`);
    expect(res.status).toBe(200);
    const body = res.json as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'api_key', 'expires_in', 'scope', 'token_type']);
    expect(body).toMatchObject({ expires_in: 3600, scope: VISION_SCOPE, token_type: 'Bearer' });
    expect(typeof body.access_token).toBe('string');
    expect(typeof body.api_key).toBe('string');
    expect(sandbox.stats().tokensIssued).toBe(1);
  });

  test('an empty scope grants every scope', async () => {
    const res = await tokenRequest('grant_type=client_credentials&scope=');
    expect((res.json as { scope: string }).scope.split(' ').sort()).toEqual([...VISION_SCOPE.split(' '), 'sfu.api.ricoh/v1/sfu'].sort());
  });

  test('a wrong secret is 401 invalid_client and issues nothing', async () => {
    const res = await tokenRequest('grant_type=client_credentials', `${SANDBOX_CLIENT.id}:wrong`);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(res.text).not.toContain('wrong');
    expect(sandbox.stats().tokensIssued).toBe(0);
  });

  test('wrong grant type, unknown scope and wrong content type are 400', async () => {
    expect((await tokenRequest('grant_type=password')).json).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await tokenRequest('grant_type=client_credentials&scope=nope')).json).toMatchObject({ error: 'invalid_scope' });
    const wrongType = await tokenRequest('{}', undefined, 'application/json');
    expect(wrongType.status).toBe(400);
    expect(wrongType.json).toMatchObject({ error: 'invalid_request' });
  });
});

describe('vision authorization', () => {
  const list = (headers: Record<string, string>) => send(sandbox.url + '/v1/face_collections', { headers });

  test('valid token and key pass', async () => {
    const token = await fetchToken(sandbox.url);
    const res = await list(visionHeaders(token));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ face_collections: [] });
  });

  test('missing or unknown bearer token is 401 Unauthorized', async () => {
    const token = await fetchToken(sandbox.url);
    expect(await list({ 'x-api-key': token.apiKey })).toMatchObject({ status: 401, json: { message: 'Unauthorized' } });
    expect(await list({ authorization: 'Bearer nope', 'x-api-key': token.apiKey })).toMatchObject({ status: 401 });
  });

  test('valid token with a missing or wrong API key is 403 Forbidden', async () => {
    const token = await fetchToken(sandbox.url);
    expect(await list({ authorization: `Bearer ${token.accessToken}` })).toMatchObject({ status: 403, json: { message: 'Forbidden' } });
    expect(await list({ ...visionHeaders(token), 'x-api-key': 'wrong' })).toMatchObject({ status: 403 });
  });

  test('a token issued only for streaming does not open vision', async () => {
    const token = await fetchToken(sandbox.url, 'sfu.api.ricoh/v1/sfu');
    expect((await list(visionHeaders(token))).status).toBe(401);
  });

  test('expireTokens() and the admin path both turn live tokens into 401', async () => {
    const first = await fetchToken(sandbox.url);
    sandbox.expireTokens();
    expect((await list(visionHeaders(first))).status).toBe(401);
    const second = await fetchToken(sandbox.url);
    expect((await list(visionHeaders(second))).status).toBe(200);
    expect((await send(sandbox.url + '/_sandbox/expire-tokens', { method: 'POST' })).status).toBe(200);
    expect((await list(visionHeaders(second))).status).toBe(401);
  });

  test('the tokenLifetimeSeconds option sets expires_in', async () => {
    const short = await startSandbox({ port: 0, tokenLifetimeSeconds: 1 });
    try {
      const res = await send(short.url + '/v1/token', {
        method: 'POST',
        headers: {
          authorization: 'Basic ' + Buffer.from(`${SANDBOX_CLIENT.id}:${SANDBOX_CLIENT.secret}`).toString('base64'),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect((res.json as { expires_in: number }).expires_in).toBe(1);
    } finally {
      await short.stop();
    }
  });
});
