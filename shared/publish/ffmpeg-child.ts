import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from '../util/child-env';

// Every camera encoder alive in this process; killed when the process exits, so none outlives it.
const live = new Set<ChildProcess>();
let hooked = false;

function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** Starts ffmpeg and remembers it until it exits; the process's exit kills what is left. `outputs`: pipes it writes (stdout, then fd 3, 4, ...). */
export function spawnFfmpeg(ffmpegPath: string, args: string[], stdin: 'pipe' | 'ignore', outputs = 1): ChildProcess {
  if (!hooked) {
    hooked = true;
    process.once('exit', killAll);
  }
  const child = spawn(ffmpegPath, args, { stdio: ffmpegStdio(stdin, outputs), env: childEnv() });
  live.add(child);
  const forget = (): void => void live.delete(child);
  child.once('exit', forget);
  child.once('error', forget);
  return child;
}

/** An ffmpeg child's stdio: stdin as given, stdout and stderr piped, and one more pipe per output after the first (fd 3, 4, ...). */
export function ffmpegStdio(stdin: 'pipe' | 'ignore', outputs = 1): ('pipe' | 'ignore')[] {
  return [stdin, 'pipe', 'pipe', ...Array.from({ length: Math.max(0, outputs - 1) }, () => 'pipe' as const)];
}

/** How many camera encoders this process runs now (for tests and leak checks). */
export function liveFfmpegChildren(): number {
  return live.size;
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(killer);
}
