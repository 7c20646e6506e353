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

let switchedOff = false;

/**
 * Turns the speed-ups off for this thread (the command line does it for VS_WERIFT_SPEEDUPS=0), for
 * the connections made after it. Once a connection of this thread has applied them they cannot be
 * taken back out of werift: then it throws an InputError instead of reporting an off that is not
 * true (a face watcher's receive worker is another thread, with a werift of its own).
 */
export function disableWeriftSpeedups(): void {
  if (switchedOff) return;
  const applied = appliedSpeedups();
  if (applied.length > 0) {
    throw new InputError(
      'invalid_input',
      `the werift speed-ups cannot be turned off on this thread: a connection made here already applied them (${applied.join(', ')}); turn them off before the first connection, or run the watcher's receive path in a worker (session.thread: 'worker')`,
      { field: 'weriftSpeedups', limit: 'off before the first connection' },
    );
  }
  switchedOff = true;
}

/** Whether the speed-ups run here: off when switched off, or when the installed werift is not one they were tested with. */
export function weriftSpeedupsStatus(): WeriftSpeedupsStatus {
  const version = weriftVersion();
  if (switchedOff) return { version, enabled: false, reason: 'turned off' };
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
