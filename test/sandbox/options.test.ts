import { createServer } from 'node:net';
import { startSandbox } from '../../sandbox';
import { resolveSandboxOptions } from '../../sandbox/options';
import { freePort } from '../support/free-port';

describe('sandbox options from the environment', () => {
  it('reads SANDBOX_* variables, explicit options winning', () => {
    const env = { SANDBOX_PORT: '9999', SANDBOX_CLIENT_ID: 'door-cam', SANDBOX_ROOM_LIMIT: '3', SANDBOX_TOKEN_LIFETIME: '60' };
    const options = resolveSandboxOptions({ port: 0 }, env);
    expect(options.port).toBe(0);
    expect(options.clientId).toBe('door-cam');
    expect(options.tokenLifetimeSeconds).toBe(60);
    expect(options.streaming).toEqual({ roomLimit: 3 });
  });

  it('merges SANDBOX_ROOM_LIMIT with explicit streaming options', () => {
    const options = resolveSandboxOptions({ streaming: { pingIntervalMs: 100 } }, { SANDBOX_ROOM_LIMIT: '2' });
    expect(options.streaming).toEqual({ roomLimit: 2, pingIntervalMs: 100 });
    const explicit = resolveSandboxOptions({ streaming: { roomLimit: 7 } }, { SANDBOX_ROOM_LIMIT: '2' });
    expect(explicit.streaming.roomLimit).toBe(7);
  });

  it('refuses a variable that is not a number, naming it', () => {
    expect(() => resolveSandboxOptions({}, { SANDBOX_ROOM_LIMIT: 'many' })).toThrow(/SANDBOX_ROOM_LIMIT must be a number/);
    expect(() => resolveSandboxOptions({}, { SANDBOX_PORT: '70000' })).toThrow(/port must be an integer from 0 to 65535/);
  });
});

describe('a started sandbox', () => {
  it('tells which client it accepts and whether its secret is the public default', async () => {
    const plain = await startSandbox({ port: 0, clientId: 'door-cam' });
    const custom = await startSandbox({ port: 0, clientSecret: 'chosen-secret' });
    try {
      expect(plain).toMatchObject({ clientId: 'door-cam', secretIsDefault: true });
      expect(custom).toMatchObject({ clientId: process.env.SANDBOX_CLIENT_ID || 'sandbox-client', secretIsDefault: false });
      expect(JSON.stringify(custom)).not.toContain('chosen-secret');
    } finally {
      await plain.stop();
      await custom.stop();
    }
  });
});

describe('a sandbox that fails to start', () => {
  it('closes its server when a module cannot be built after listening', async () => {
    const port = await freePort();
    await expect(startSandbox({ port, streaming: { roomLimit: -1 } })).rejects.toThrow(/roomLimit/);
    // The port is free again: the half-started server did not stay behind.
    const probe = createServer();
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
});

