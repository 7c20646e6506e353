import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../shared/errors';

/**
 * Before the watch starts: the --snapshots folder exists (created mode 0700 when it does not: it
 * will hold pictures of people) and a file can really be created in it; else an InputError naming
 * --snapshots, so that no event has to go out without its files.
 */
export async function checkSnapshotFolder(folder: string): Promise<void> {
  const where = path.resolve(folder);
  const refuse = (why: string): InputError => new InputError('snapshots', `--snapshots ${where}: ${why}`, 'a folder this user can write');
  try {
    await mkdir(where, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw refuse(`cannot be created (${fileFailure(err)})`);
  }
  const stats = await lstat(where).catch(() => undefined);
  if (!stats?.isDirectory() && !(stats?.isSymbolicLink() ?? false)) throw refuse('is not a folder');
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
