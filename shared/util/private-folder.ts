import { randomBytes } from 'node:crypto';
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors';
import { trustProblem } from './trust';

/**
 * A folder that will hold pictures or video of people exists (created mode 0700 when it does not), is
 * this user's and writable by no one else (another could read, replace or link away the files), and
 * a file can really be created in it; else an InputError naming `name` (a flag or an option) and `field`.
 */
export async function checkPrivateFolder(folder: string, name: string, field: string): Promise<void> {
  const where = path.resolve(folder);
  const refuse = (why: string, expected = 'a folder this user can write'): InputError => new InputError('invalid_input', `${name} ${where}: ${why}`, { field, limit: expected });
  try {
    await mkdir(where, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw refuse(`cannot be created (${fileFailure(err)})`);
  }
  // The folder a link points to is the one written to: that is the one checked.
  const stats = await stat(where).catch(() => undefined);
  if (!stats?.isDirectory()) throw refuse('is not a folder');
  const problem = trustProblem(stats);
  if (problem?.kind === 'owner') throw refuse(`belongs to another user (uid ${problem.uid}); pictures of people would be theirs to read or replace: give a folder of your own`, 'a folder of your own');
  if (problem?.kind === 'writable') throw refuse(`can be written by other users (mode ${problem.mode}); they could replace or link away pictures of people: chmod go-w it, or give a folder of your own`, 'writable by you alone');
  // Writing a file is the only test that holds for every user (root included) and file system.
  const probe = path.join(where, `.write-test-${randomBytes(8).toString('hex')}`);
  try {
    const handle = await open(probe, 'wx', 0o600);
    await handle.close();
  } catch (err) {
    throw refuse(`a file cannot be written there (${fileFailure(err)})`);
  }
  await unlink(probe).catch(() => undefined);
}

/** Why a file could not be written, in a word (EACCES, ENOSPC, ...): never the path or text of the system's message. */
export function fileFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}
