import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../errors';
import { appliedSpeedups } from './apply-once';

/** werift releases the speed-ups were checked against (their equality tests and bench:watch). */
export const TESTED_WERIFT_VERSIONS: readonly string[] = ['0.25.2'];

/** Whether the speed-ups run in this thread, and why not when they do not. */
export interface WeriftSpeedupsStatus {
  /** The installed werift's version (read from its package.json). */
  version?: string;
  enabled: boolean;
  /** Why they are off: turned off by the host, or a werift version they were not tested with. */
  reason?: string;
}

/** The environment variable that turns the speed-ups off for the process: `VS_WERIFT_SPEEDUPS=0` (or off, false, no). */
export const WERIFT_SPEEDUPS_ENV = 'VS_WERIFT_SPEEDUPS';

/** The setting made by setWeriftSpeedups; undefined: the environment's. */
let setting: boolean | undefined;

/**
 * Sets the werift speed-ups of this process, for the connections made after it: a process setting,
 * as werift is one per thread and the receive workers are shared by every watcher of the process
 * (VS_WERIFT_SPEEDUPS=0 sets it off too; this call wins over the variable). New receive workers follow
 * it; workers already running keep theirs for their sessions. Once a connection of this thread has
 * applied the speed-ups they cannot be taken back out of its werift: turning them off then throws an
 * InputError instead of reporting an off that is not true.
 */
export function setWeriftSpeedups(on: boolean): void {
  if (typeof on !== 'boolean') throw new InputError('invalid_input', 'setWeriftSpeedups takes true or false', { field: 'weriftSpeedups', limit: 'true | false' });
  const applied = appliedSpeedups();
  if (!on && weriftSpeedupsOn() && applied.length > 0) {
    throw new InputError(
      'invalid_input',
      `the werift speed-ups cannot be turned off on this thread: a connection made here already applied them (${applied.join(', ')}); turn them off before the first connection (setWeriftSpeedups(false), or ${WERIFT_SPEEDUPS_ENV}=0 when the process starts)`,
      { field: 'weriftSpeedups', limit: 'off before the first connection' },
    );
  }
  setting = on;
}

/** Turns the speed-ups off for this process (setWeriftSpeedups(false)); throws the same InputError once they are applied on this thread. */
export function disableWeriftSpeedups(): void {
  setWeriftSpeedups(false);
}

/** The process setting: on unless setWeriftSpeedups(false) or VS_WERIFT_SPEEDUPS=0 turned the speed-ups off. */
export function weriftSpeedupsOn(): boolean {
  return setting ?? !/^(0|off|false|no)$/i.test(process.env[WERIFT_SPEEDUPS_ENV]?.trim() ?? '');
}

/** Whether the speed-ups run here: off when switched off, or when the installed werift is not one they were tested with. */
export function weriftSpeedupsStatus(): WeriftSpeedupsStatus {
  const version = weriftVersion();
  if (!weriftSpeedupsOn()) return { version, enabled: false, reason: 'turned off' };
  if (!version || !TESTED_WERIFT_VERSIONS.includes(version)) {
    return { version, enabled: false, reason: `werift ${version ?? '(unknown version)'} is not one the speed-ups were tested with (${TESTED_WERIFT_VERSIONS.join(', ')})` };
  }
  return { version, enabled: true };
}

let installedVersion: string | null | undefined;

/** The installed werift's version: its `exports` hides its package.json, so it is read from the file beside its entry point's package root. */
function weriftVersion(): string | undefined {
  if (installedVersion === undefined) {
    installedVersion = null;
    let dir = path.dirname(require.resolve('werift'));
    for (let i = 0; i < 6 && installedVersion === null; i++, dir = path.dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'werift' && typeof pkg.version === 'string') installedVersion = pkg.version;
      } catch {
        // No package.json at this level: one up.
      }
    }
  }
  return installedVersion ?? undefined;
}
