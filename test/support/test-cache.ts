import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { TEST_CACHE } from './images';

/**
 * A folder kept in TEST_CACHE under `name` (a key of everything it is made from), made by `make`
 * into a folder of its own the first time and then renamed into place, so that no test file sees it
 * half made (another making it at the same time: either is as good). Its path.
 */
export async function keptFolder(name: string, make: (dir: string) => Promise<void>): Promise<string> {
  await mkdir(TEST_CACHE, { recursive: true, mode: 0o700 });
  const kept = path.join(TEST_CACHE, name);
  if (!(await stat(kept).catch(() => undefined))) {
    const work = `${kept}.${randomBytes(6).toString('hex')}.tmp`;
    await make(work);
    await rename(work, kept).catch(async () => rm(work, { recursive: true, force: true }));
  }
  return kept;
}
