import { createServer } from 'node:net';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox';
import { TokenSource, VISION_SCOPES } from '../../shared/auth';
import { HttpClient, type RetryPolicy } from '../../shared/http';
import { VisionClient } from '../../shared/vision';

/** Credentials of the test client; the secret is unique so a leak can be searched for. */
export const CLIENT_ID = 'client-contract-tests';
export const CLIENT_SECRET = `cs-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;

/** Short waits so retry tests stay quick; the policy itself is what is under test. */
export const FAST_RETRY: RetryPolicy = { retries: 8, baseDelayMs: 5, maxDelayMs: 50 };

/** A running sandbox and a vision client wired to it. */
export interface Harness {
  sandbox: RunningSandbox;
  tokens: TokenSource;
  client: VisionClient;
  /** Lower-level access for requests the vision client never makes (wrong content type...). */
  http: HttpClient;
  /** Requests the sandbox has counted so far on /v1/*. */
  requests(): number;
  /** Requests to one endpoint ('detect_faces', 'collections', 'token'...). */
  hits(endpoint: string): number;
  /** Resets the sandbox (which forgets issued tokens) and makes one call so a valid token is cached again. */
  resetAndWarm(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a sandbox on an ephemeral 127.0.0.1 port with a client that uses it. */
export async function startHarness(options: Partial<SandboxOptions> = {}, retry: Partial<RetryPolicy> = FAST_RETRY): Promise<Harness> {
  const sandbox = await startSandbox({ port: 0, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...options });
  const tokens = new TokenSource({ authUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: VISION_SCOPES, retry });
  const client = new VisionClient({ visionUrl: sandbox.url, tokens, retry });
  const http = new HttpClient({ baseUrl: sandbox.url, tokens, sendApiKey: true, retry });
  return {
    sandbox,
    tokens,
    client,
    http,
    requests: () => sandbox.stats().requests,
    hits: (endpoint) => sandbox.stats().byEndpoint[endpoint] ?? 0,
    async resetAndWarm() {
      await sandbox.reset();
      await client.listCollections();
    },
    async stop() {
      await client.close();
      await http.close();
      await tokens.close();
      await sandbox.stop();
    },
  };
}

/** A 127.0.0.1 port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `fn` and returns what it threw (fails the test when it did not throw). */
export async function caught(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
