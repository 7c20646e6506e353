/**
 * A sandbox in a child process, for benchmarks: the server then has its own JS thread (and, on a
 * 2-core machine, its own core), so what the benchmark measures in its own process is not mixed
 * with the server's work, and the server's CPU use can be read on its own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { startSandbox, type SandboxOptions } from '../../sandbox';

const CHILD_FLAG = '--sandbox-child';

/** A sandbox running in a child process. */
export interface SandboxChild {
  readonly url: string;
  /** CPU time the child has used so far (process.cpuUsage() of the child, microseconds). */
  cpuUsage(): Promise<NodeJS.CpuUsage>;
  /** Stops the sandbox and waits for the child to exit. */
  stop(): Promise<void>;
}

/** Forks this module as a child that runs `startSandbox(options)` on 127.0.0.1. */
export async function forkSandbox(options: Partial<SandboxOptions> = {}): Promise<SandboxChild> {
  const child = fork(__filename, [CHILD_FLAG, JSON.stringify({ ...options, host: '127.0.0.1', port: 0 })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { type: string; url: string }) => (m.type === 'ready' ? resolve(m.url) : reject(new Error('sandbox child failed'))));
    child.once('exit', (code) => reject(new Error(`sandbox child exited with ${code}`)));
  });
  return {
    url,
    cpuUsage: () => ask<{ cpu: NodeJS.CpuUsage }>(child, 'cpu').then((m) => m.cpu),
    stop: async () => {
      // Gone already (ended, or killed by a signal): nothing to stop, and no channel to send on.
      if (child.exitCode !== null || child.signalCode !== null || !child.connected) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (msg: { type: string } & Record<string, unknown>): void => {
      if (msg.type !== type) return;
      child.off('message', on);
      resolve(msg as T);
    };
    child.on('message', on);
    child.send({ type });
  });
}

/** In the child: run the sandbox and answer CPU questions over IPC until told to stop. */
async function runChild(options: Partial<SandboxOptions>): Promise<void> {
  const sandbox = await startSandbox(options);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void sandbox.stop().then(() => process.exit(0));
  };
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'cpu') process.send?.({ type: 'cpu', cpu: process.cpuUsage() });
    if (msg.type === 'stop') stop();
  });
  // A parent that dies (crash, Ctrl-C) closes the IPC channel: the child must not outlive it.
  process.on('disconnect', stop);
  process.send?.({ type: 'ready', url: sandbox.url });
}

if (require.main === module && process.argv[2] === CHILD_FLAG) {
  runChild(JSON.parse(process.argv[3] ?? '{}') as Partial<SandboxOptions>).catch((err: unknown) => {
    console.error('sandbox child failed:', err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
