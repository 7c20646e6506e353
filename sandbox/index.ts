import type { AddressInfo } from 'node:net';
import { guard } from './auth/guard';
import { createTokenModule } from './auth/token-endpoint';
import { TokenStore } from './auth/token-store';
import { type FaultConfig, validateFaultConfig } from './faults/config';
import { FaultInjector } from './faults/injector';
import { sendJson } from './http/respond';
import type { SandboxContext, SandboxModule } from './module';
import { defaultSandboxOptions, resolveSandboxOptions, type SandboxOptions } from './options';
import { createSandboxServer } from './server';
import { RequestCounter, type SandboxStats } from './stats';
import { createStreamingModule } from './streaming';
import { FaceModel } from './vision/model/face-model';
import { createVisionModule } from './vision/module';

export type { EndpointFaults, FaultConfig } from './faults/config';
export type { SandboxOptions } from './options';
export { defaultSandboxOptions } from './options';
export type { SandboxStats } from './stats';

/** A started sandbox: its address and the hooks tests use to steer it. */
export interface RunningSandbox {
  /** 'http://127.0.0.1:<port>'; the auth, vision and streaming base URL alike. */
  readonly url: string;
  readonly port: number;
  /** The client id the token endpoint accepts (from the options, the environment or the default). */
  readonly clientId: string;
  /** True when the client secret is the documented public placeholder, which may be shown. */
  readonly secretIsDefault: boolean;
  /** Same as POST /_sandbox/faults; throws a RangeError naming a bad field. */
  setFaults(faults: FaultConfig): void;
  /** Drops every fault rule; requests still held by an injected delay go on at once. */
  clearFaults(): void;
  /** Every issued token becomes invalid (the next call gets 401). */
  expireTokens(): void;
  /** Forgets all state: collections, faces, rooms, tokens, faults, counters. */
  reset(): Promise<void>;
  /** Same as GET /_sandbox/stats. */
  stats(): SandboxStats;
  /** Closes the server and every socket and peer it opened. */
  stop(): Promise<void>;
}

/** Starts the sandbox server (both services on one port) and resolves once it listens. */
export async function startSandbox(options: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  const settings = resolveSandboxOptions(options);
  const tokens = new TokenStore(settings.tokenLifetimeSeconds);
  const faults = new FaultInjector();
  const counter = new RequestCounter();
  const model = new FaceModel(settings.modelCacheEntries);
  const modules = new Map<string, SandboxModule>();
  let baseUrl = '';

  const ctx: SandboxContext = {
    get baseUrl() {
      return baseUrl;
    },
    authorize: (req, res, scope) => guard(tokens, req, res, scope) !== undefined,
    applyFaults: (endpoint, res) => faults.apply(endpoint, res),
    json: (res, status, body) => sendJson(res, status, body),
  };

  const stats = (): SandboxStats => counter.snapshot(tokens.issuedCount);
  const setFaults = (config: unknown): FaultConfig => {
    const valid = validateFaultConfig(config);
    faults.configure(valid);
    return faults.current();
  };
  const reset = async (): Promise<void> => {
    faults.clear();
    counter.reset();
    tokens.reset();
    for (const module of modules.values()) await module.reset();
  };

  const server = createSandboxServer({
    modules,
    admin: { setFaults, expireTokens: () => tokens.expireAll(), reset, stats },
    countRequest: (endpoint) => counter.count(endpoint),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  baseUrl = `http://${host}:${port}`;

  const closeAll = async (): Promise<void> => {
    faults.wakeAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const module of modules.values()) await module.close();
    await closed;
  };
  try {
    modules.set('auth', createTokenModule(ctx, tokens, { clientId: settings.clientId, clientSecret: settings.clientSecret }));
    modules.set('vision', createVisionModule(ctx, tokens, model, settings));
    modules.set('streaming', createStreamingModule(ctx, settings.streaming));
    if (settings.eagerModel) await model.warmUp();
  } catch (err) {
    // The server already listens: a failed start must not leave it (or a built module) open.
    await closeAll().catch(() => undefined);
    throw err;
  }

  let stopping: Promise<void> | undefined;
  return {
    url: baseUrl,
    port,
    clientId: settings.clientId,
    secretIsDefault: settings.clientSecret === defaultSandboxOptions.clientSecret,
    setFaults: (config) => void setFaults(config),
    clearFaults: () => faults.clear(),
    expireTokens: () => tokens.expireAll(),
    reset,
    stats,
    stop: () => {
      stopping ??= closeAll();
      return stopping;
    },
  };
}
