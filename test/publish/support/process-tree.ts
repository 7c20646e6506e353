import { readdirSync, readFileSync } from 'node:fs';

/** A process seen under a command: its pid and its start time (so a reused pid is not taken for it). */
export interface SeenProcess {
  pid: number;
  start: string;
  command: string;
}

/** Fields of /proc/<pid>/stat after the command name: [state, ppid, ..., starttime at index 19]. */
function statOf(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every live descendant of `root` (children, their children, ...), read from /proc. */
export function descendants(root: number): SeenProcess[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat) parent.set(Number(name), Number(stat[1]));
  }
  const found: SeenProcess[] = [];
  const walk = (pid: number): void => {
    for (const [child, ppid] of parent) {
      if (ppid !== pid) continue;
      const stat = statOf(child);
      if (!stat) continue;
      found.push({ pid: child, start: stat[19], command: commandOf(child) });
      walk(child);
    }
  };
  walk(root);
  return found;
}

/** Whether a process seen earlier still runs (a zombie counts as gone: it runs nothing). */
export function stillRunning(p: SeenProcess): boolean {
  const stat = statOf(p.pid);
  return stat !== undefined && stat[19] === p.start && stat[0] !== 'Z';
}

/**
 * Records every descendant of `root` every 50 ms until stop(), so that the children a command
 * started (ffmpeg, workers) are known even after it exits and they would be re-parented.
 */
export function watchTree(root: number): { seen: () => SeenProcess[]; stop: () => void } {
  const seen = new Map<string, SeenProcess>();
  const look = (): void => {
    for (const p of descendants(root)) seen.set(`${p.pid}/${p.start}`, p);
  };
  look();
  const timer = setInterval(look, 50);
  return { seen: () => [...seen.values()], stop: () => clearInterval(timer) };
}
