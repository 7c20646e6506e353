import { startSandbox, type RunningSandbox } from '../../../sandbox';
import type { StreamingSandboxOptions } from '../../../sandbox/streaming/options';

const CLIENT_ID = 'streaming-test-client';
const CLIENT_SECRET = 'streaming-test-secret';
/** The scope the real service grants for the Live Streaming API. */
export const STREAMING_SCOPE = 'sfu.api.ricoh/v1/sfu';

/** A running sandbox plus a bearer token for the streaming API and small REST helpers. */
export interface StreamingFixture {
  sandbox: RunningSandbox;
  token: string;
  /** Resets the sandbox (all rooms, tokens, faults) and fetches a fresh token. */
  reset(): Promise<void>;
  /** Calls the sandbox with the streaming bearer token unless `token` overrides it. */
  call(method: string, path: string, init?: { body?: string; headers?: Record<string, string>; token?: string | null }): Promise<Reply>;
  createRoom(): Promise<{ id: string }>;
  ticket(roomId: string, direction: 'up' | 'down'): Promise<{ id: string; access_token: string; direction: string; url: string }>;
  admin(action: string, body?: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** A response read in full. */
export interface Reply {
  status: number;
  contentType: string | null;
  text: string;
  json(): unknown;
}

/** Fetches a token from the sandbox's token endpoint. */
export async function fetchToken(url: string, scope: string): Promise<string> {
  const res = await fetch(`${url}/v1/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  if (res.status !== 200) throw new Error(`token request failed with ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Starts a sandbox on an ephemeral loopback port with short streaming timings. */
export async function startStreamingFixture(streaming: Partial<StreamingSandboxOptions> = {}): Promise<StreamingFixture> {
  const sandbox = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    streaming: { countDelayMs: 50, ...streaming },
  });
  try {
    const state = { token: await fetchToken(sandbox.url, STREAMING_SCOPE) };
    const call: StreamingFixture['call'] = async (method, path, init = {}) => {
      const headers: Record<string, string> = { ...init.headers };
      const bearer = init.token === undefined ? state.token : init.token;
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: init.body });
      const text = await res.text();
      return { status: res.status, contentType: res.headers.get('content-type'), text, json: () => JSON.parse(text) };
    };
    return {
      sandbox,
      get token() {
        return state.token;
      },
      async reset() {
        await sandbox.reset();
        state.token = await fetchToken(sandbox.url, STREAMING_SCOPE);
      },
      call,
      async createRoom() {
        const reply = await call('POST', '/v1/rooms');
        if (reply.status !== 200) throw new Error(`room creation failed with ${reply.status}: ${reply.text}`);
        return reply.json() as { id: string };
      },
      async ticket(roomId, direction) {
        const reply = await call('POST', `/v1/rooms/${roomId}/tickets`, {
          body: JSON.stringify({ direction }),
          headers: { 'content-type': 'application/json' },
        });
        if (reply.status !== 200) throw new Error(`ticket request failed with ${reply.status}: ${reply.text}`);
        return reply.json() as { id: string; access_token: string; direction: string; url: string };
      },
      async admin(action, body = {}) {
        const res = await fetch(`${sandbox.url}/_sandbox/streaming/${action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`admin ${action} failed with ${res.status}: ${text}`);
        return text ? JSON.parse(text) : undefined;
      },
      stop: () => sandbox.stop(),
    };
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}

/** Polls `read` until `accept` holds, at most `attempts` times with `gapMs` between (bounded, no clock asserted). */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, attempts = 100, gapMs = 20): Promise<T> {
  let value = await read();
  for (let i = 1; i < attempts && !accept(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    value = await read();
  }
  return value;
}
