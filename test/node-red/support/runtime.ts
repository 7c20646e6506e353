import helper from 'node-red-node-test-helper';
import type { Node } from 'node-red';
import { startSandbox, type RunningSandbox } from '../../../sandbox';
import { waitFor } from '../../watch/support/room';

/**
 * Node-RED flows under test: the real runtime (node-red-node-test-helper) with this package's
 * nodes loaded from their TypeScript sources, talking to a sandbox on 127.0.0.1.
 */

export { helper };

/** Id of the config node every test flow uses. */
export const CONFIG_ID = 'svc';

/** A config node pointing every address at the sandbox. */
export function configNode(sandbox: RunningSandbox): Record<string, unknown> {
  return { id: CONFIG_ID, type: 'vision-streaming-config', name: 'sandbox', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url };
}

/** The config node's credentials (the sandbox's public placeholder secret). */
export function configCredentials(sandbox: RunningSandbox, secret = 'sandbox-secret'): Record<string, Record<string, string>> {
  return { [CONFIG_ID]: { clientId: sandbox.clientId, clientSecret: secret } };
}

/** Starts a sandbox for a test file; stop it in afterAll. */
export function sandboxForTests(): Promise<RunningSandbox> {
  return startSandbox({ port: 0, host: '127.0.0.1', collectionLimit: 5 });
}

/** Registers the helper's server hooks for a test file (jest 30: promise style, no done callbacks). */
export function useNodeRedHelper(): void {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });
}

/** A message received by a helper node. */
export type Received = Record<string, unknown> & { payload?: unknown };

/** The next message a node receives (rejects after `ms`, naming what was awaited). */
export function nextMessage(nodeId: string, ms = 30_000): Promise<Received> {
  const node = helper.getNode(nodeId) as Node | undefined;
  if (!node) throw new Error(`no node ${nodeId} in the flow`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message reached ${nodeId} within ${ms} ms`)), ms);
    node.once('input', (msg: Received) => {
      clearTimeout(timer);
      resolve(msg);
    });
  });
}

/** Sends a message into a node as if a wire delivered it. */
export function inject(nodeId: string, msg: Record<string, unknown>): void {
  const node = helper.getNode(nodeId) as Node | undefined;
  if (!node) throw new Error(`no node ${nodeId} in the flow`);
  node.receive(msg);
}

/** Every message a node receives from now on, in order. */
export function received(nodeId: string): Received[] {
  const node = helper.getNode(nodeId) as Node | undefined;
  if (!node) throw new Error(`no node ${nodeId} in the flow`);
  const seen: Received[] = [];
  node.on('input', (msg: Received) => seen.push(msg));
  return seen;
}

/** Resolves when `predicate` holds; rejects after `ms` naming `what` (flows with a live room take a while). */
export function until(what: string, predicate: () => boolean, ms = 120_000): Promise<void> {
  return waitFor(what, predicate, ms);
}
