import type { StreamingSandboxOptions } from './streaming/options';

/** Everything a sandbox run can be tuned with; see README.md for the defaults and env names. */
export interface SandboxOptions {
  /** Interface to bind; the sandbox is meant for this machine only. */
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  clientId: string;
  clientSecret: string;
  tokenLifetimeSeconds: number;
  /** Collections one client may hold (the real service allows 1 during its beta). */
  collectionLimit: number;
  facesPerCollection: number;
  streaming: Partial<StreamingSandboxOptions>;
  /** Load the face model while starting instead of on the first vision call. */
  eagerModel: boolean;
  /** Images whose model results are kept (keyed by SHA-256 of the bytes). */
  modelCacheEntries: number;
  /** Time allowed to download an image given by URL, in ms. */
  imageFetchTimeoutMs: number;
}

/** Documented defaults (README.md). The secret is a public placeholder, not a real credential. */
export const defaultSandboxOptions: Readonly<Omit<SandboxOptions, 'streaming'>> = Object.freeze({
  host: '127.0.0.1',
  port: 8787,
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  tokenLifetimeSeconds: 3600,
  collectionLimit: 1,
  facesPerCollection: 1000,
  eagerModel: false,
  modelCacheEntries: 64,
  imageFetchTimeoutMs: 10_000,
});

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a number, got "${raw}"`);
  return value;
}

/** Options taken from SANDBOX_* environment variables (only those that are set). */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<SandboxOptions> {
  const out: Partial<SandboxOptions> = {};
  if (env.SANDBOX_HOST) out.host = env.SANDBOX_HOST;
  if (env.SANDBOX_CLIENT_ID) out.clientId = env.SANDBOX_CLIENT_ID;
  if (env.SANDBOX_CLIENT_SECRET) out.clientSecret = env.SANDBOX_CLIENT_SECRET;
  const port = envNumber(env, 'SANDBOX_PORT');
  if (port !== undefined) out.port = port;
  const lifetime = envNumber(env, 'SANDBOX_TOKEN_LIFETIME');
  if (lifetime !== undefined) out.tokenLifetimeSeconds = lifetime;
  const collections = envNumber(env, 'SANDBOX_COLLECTION_LIMIT');
  if (collections !== undefined) out.collectionLimit = collections;
  const rooms = envNumber(env, 'SANDBOX_ROOM_LIMIT');
  if (rooms !== undefined) out.streaming = { roomLimit: rooms };
  if (env.SANDBOX_EAGER_MODEL) out.eagerModel = env.SANDBOX_EAGER_MODEL === '1' || env.SANDBOX_EAGER_MODEL === 'true';
  return out;
}

function requireInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`sandbox option ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

/** Merges env, explicit options and defaults (explicit wins) and checks the numbers. */
export function resolveSandboxOptions(explicit: Partial<SandboxOptions> = {}, env: NodeJS.ProcessEnv = process.env): SandboxOptions {
  const fromEnv = optionsFromEnv(env);
  const merged: SandboxOptions = { ...defaultSandboxOptions, ...fromEnv, ...stripUndefined(explicit), streaming: { ...fromEnv.streaming, ...explicit.streaming } };
  requireInteger('port', merged.port, 0, 65535);
  requireInteger('tokenLifetimeSeconds', merged.tokenLifetimeSeconds, 1, 31_536_000);
  requireInteger('collectionLimit', merged.collectionLimit, 0, 1_000_000);
  requireInteger('facesPerCollection', merged.facesPerCollection, 1, 1_000_000);
  requireInteger('modelCacheEntries', merged.modelCacheEntries, 0, 100_000);
  requireInteger('imageFetchTimeoutMs', merged.imageFetchTimeoutMs, 1, 600_000);
  if (!merged.clientId || !merged.clientSecret) throw new RangeError('sandbox options clientId and clientSecret must not be empty');
  return merged;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
