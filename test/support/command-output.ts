import type { ChildProcess } from 'node:child_process';

/** What a command run by a test printed: its JSON lines as they come, and the whole of stdout and stderr. */
export interface CommandOutput {
  lines: Record<string, unknown>[];
  stdout: () => string;
  stderr: () => string;
}

/** Reads a command's stdout (each line that is a JSON object, parsed) and stderr as they arrive. */
export function readOutput(child: ChildProcess): CommandOutput {
  let pending = '';
  let all = '';
  let err = '';
  const lines: Record<string, unknown>[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    all += d.toString();
    pending += d.toString();
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return { lines, stdout: () => all, stderr: () => err };
}
