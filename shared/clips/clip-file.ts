import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Why a clip file could not be written: the disk is full, or another failure (permissions, a folder gone). */
export type ClipWriteFailure = 'disk_full' | 'write_failed';

/**
 * Writes a clip under a temporary name (created new, mode 0600: it shows people) and renames it to
 * `name` once complete, so that no half-written file is ever named as a clip; on a failure the
 * temporary file is removed and the failure is returned as a code, never the system's message. When
 * `keep` says no once written (the watcher stopped meanwhile), the file is removed too.
 */
export async function writeClipFile(folder: string, name: string, data: Buffer, keep: () => boolean = () => true): Promise<{ path: string } | { error: ClipWriteFailure | 'stopped'; cause: string }> {
  const final = path.resolve(folder, name);
  const temp = path.resolve(folder, `.${name}.${randomBytes(6).toString('hex')}.part`);
  let created = false;
  try {
    const handle = await open(temp, 'wx', 0o600);
    created = true;
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // A stop that could not wait for this write removes it instead.
    if (!keep()) {
      await unlink(temp).catch(() => undefined);
      return { error: 'stopped', cause: 'stopped' };
    }
    await rename(temp, final);
    return { path: final };
  } catch (err) {
    if (created) await unlink(temp).catch(() => undefined);
    const code = (err as { code?: unknown } | null)?.code;
    const cause = typeof code === 'string' ? code : 'error';
    return { error: cause === 'ENOSPC' || cause === 'EDQUOT' ? 'disk_full' : 'write_failed', cause };
  }
}
