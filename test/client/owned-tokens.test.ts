import { TokenSource } from '../../shared/auth/token-source';
import { HttpCore } from '../../shared/http';
import { StreamingClient } from '../../shared/streaming';
import { VisionClient } from '../../shared/vision';

// Nothing here is sent: the token sources are closed before they are ever asked for a token.
const AUTH = { authUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: 'not-a-secret', scopes: [] };
const transport = async (): Promise<never> => {
  throw new Error('not sent');
};

test("the HTTP core closes the token source built for its client, once, and a caller's provider never", async () => {
  const owned = new TokenSource(AUTH);
  const callers = new TokenSource(AUTH);
  const core = new HttpCore({ baseUrl: 'http://127.0.0.1:9', transport, sleep: async () => undefined, sendApiKey: false, tokens: callers, ownedTokens: owned });
  expect(owned.closed).toBe(false);
  await Promise.all([core.close(), core.close()]);
  expect(owned.closed).toBe(true);
  expect(callers.closed).toBe(false);
  await callers.close();
});

test('options refused after the token source was built: the source is closed before the error is thrown', () => {
  const owned = new TokenSource(AUTH);
  expect(() => new HttpCore({ baseUrl: 'http://127.0.0.1:9', transport, sleep: async () => undefined, sendApiKey: false, tokens: owned, ownedTokens: owned, timeoutMs: -1 })).toThrow(
    expect.objectContaining({ name: 'InputError', field: 'timeoutMs' }),
  );
  expect(owned.closed).toBe(true);
});

test.each([
  ['VisionClient', () => new VisionClient({ ...AUTH, visionUrl: 'ftp://nowhere' })],
  ['StreamingClient', () => new StreamingClient({ ...AUTH, sfuUrl: 'ftp://nowhere' })],
])('%s with a refused address throws an InputError naming it', (_name, make) => {
  expect(make).toThrow(expect.objectContaining({ name: 'InputError' }));
});
