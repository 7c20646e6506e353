import { startSandbox, type RunningSandbox } from '../../../sandbox';
import { openVideoSource, Publisher } from '../../../shared/publish';
import { StreamingClient } from '../../../shared/streaming';
import { VisionClient } from '../../../shared/vision';
import type { WatchEvent } from '../../../shared/watch';

/** A sandbox with a vision and a streaming client logged in to it. */
export interface WatchHarness {
  sandbox: RunningSandbox;
  vision: VisionClient;
  streaming: StreamingClient;
  credentials: { authUrl: string; clientId: string; clientSecret: string };
  stop(): Promise<void>;
}

/** Starts a sandbox on a free loopback port and the two clients. */
export async function startWatchHarness(): Promise<WatchHarness> {
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, eagerModel: true, streaming: { countDelayMs: 0 } });
  const credentials = { authUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' };
  const retry = { retries: 6, baseDelayMs: 10, maxDelayMs: 100 };
  const vision = new VisionClient({ ...credentials, visionUrl: sandbox.url, retry });
  const streaming = new StreamingClient({ ...credentials, sfuUrl: sandbox.url, retry });
  return {
    sandbox,
    vision,
    streaming,
    credentials,
    async stop() {
      await vision.close();
      await streaming.close();
      await sandbox.stop();
    },
  };
}

/** Publishes a clip file (looped) into a room over loopback WebRTC. */
export async function publishClip(h: WatchHarness, roomId: string, file: string, fps = 10): Promise<Publisher> {
  const source = await openVideoSource({ file, loop: true, fps });
  const publisher = new Publisher({ source, getTicket: h.streaming.ticketSource(roomId, 'up'), loopbackOnly: true, rejoin: { baseDelayMs: 50, maxDelayMs: 300 } });
  await publisher.start();
  return publisher;
}

/** Collects a watcher's events in order. */
export function collect(on: (name: 'match' | 'unknown' | 'status' | 'error', fn: (e: WatchEvent) => void) => unknown): WatchEvent[] {
  const events: WatchEvent[] = [];
  for (const name of ['match', 'unknown', 'status', 'error'] as const) on(name, (e) => events.push(e));
  return events;
}

/** Resolves when `predicate` holds (polled every 50 ms); rejects after `timeoutMs` naming `what`. */
export async function waitFor(what: string, predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits a fixed span: only for "nothing more happens in this window" checks. */
export function during(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
