import { startSandbox, type RunningSandbox } from '../../../sandbox';
import type { StreamingSandboxOptions } from '../../../sandbox/streaming/options';
import { StreamingClient } from '../../../shared/streaming';
import type { Ticket } from '../../../shared/streaming';

/** A running sandbox plus a streaming client logged in to it. */
export interface StreamingHarness {
  sandbox: RunningSandbox;
  client: StreamingClient;
  /** POST /_sandbox/streaming/<action> */
  admin(action: string, body?: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** Starts a sandbox on an ephemeral loopback port with the given streaming options. */
export async function startHarness(streaming: Partial<StreamingSandboxOptions> = {}, roomLimit?: number): Promise<StreamingHarness> {
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, streaming: { countDelayMs: 0, ...(roomLimit ? { roomLimit } : {}), ...streaming } });
  const client = new StreamingClient({
    authUrl: sandbox.url,
    sfuUrl: sandbox.url,
    clientId: 'sandbox-client',
    clientSecret: 'sandbox-secret',
    retry: { retries: 2, baseDelayMs: 10, maxDelayMs: 50 },
  });
  return {
    sandbox,
    client,
    async admin(action, body = {}) {
      const res = await fetch(`${sandbox.url}/_sandbox/streaming/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`admin ${action}: HTTP ${res.status}`);
      return res.json();
    },
    async stop() {
      await client.close();
      await sandbox.stop();
    },
  };
}

/** A ticket callback that counts how many tickets it handed out. */
export function countingTickets(client: StreamingClient, roomId: string, direction: 'up' | 'down'): { get: () => Promise<Ticket>; count: () => number } {
  let n = 0;
  return {
    get: () => {
      n++;
      return client.createTicket(roomId, direction);
    },
    count: () => n,
  };
}

/** Resolves when `predicate` holds, polling every 20 ms; rejects after `timeoutMs` with `what`. */
export async function waitFor(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
