import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SharedRegistry } from '../util/shared-registry';
import { openHistory } from './index';
import type { HistoryStore } from './types';

/** Where a history lives: a SQLite file or a postgres:// URL, and the folder of its media (default: beside the file). */
export interface HistoryLocation {
  location: string;
  media?: string;
  /** A host's own default file: its folder is made (0700) when missing, as the host's other files' is. */
  makeFolder?: boolean;
}

/** A history lent to one user (a watch node, a trigger, an action); give it back with release(). */
export interface HistoryLease {
  /** The store, opened on the first acquire of its location (an open that failed is tried again by the next acquire). */
  store(): Promise<HistoryStore>;
  /** The last release of a location closes its store. Calling twice is harmless. */
  release(): Promise<void>;
}

interface Opening {
  store: Promise<HistoryStore>;
  failed: boolean;
}

const histories = new SharedRegistry<Opening>(
  async (opening) => {
    const store = await opening.store.catch(() => undefined);
    await store?.close();
  },
  (opening) => !opening.failed,
);

/**
 * Lends the history at a location: every user in the process with the same location and media
 * folder shares one open store (one SQLite connection, one PostgreSQL pool), so a watcher's writes,
 * a search and a forget see each other at once; the last release closes it. The key holds a digest
 * of the location, never a URL's password.
 */
export function acquireHistory(where: HistoryLocation): HistoryLease {
  const key = createHash('sha256').update(JSON.stringify([where.location, where.media ?? ''])).digest('hex');
  const take = () =>
    histories.acquire(key, () => {
      const open = async (): Promise<HistoryStore> => {
        if (where.makeFolder) await mkdir(path.dirname(where.location), { recursive: true, mode: 0o700 });
        return openHistory({ location: where.location, ...(where.media ? { media: where.media } : {}) });
      };
      const opening: Opening = { store: open(), failed: false };
      opening.store.catch(() => (opening.failed = true));
      return opening;
    });
  let lease = take();
  let released = false;
  return {
    store: async () => {
      // An open that failed (the database down, the file refused) is tried again on the next use, not remembered.
      if (lease.value.failed && !released) {
        const old = lease;
        lease = take();
        await old.release();
      }
      return lease.value.store;
    },
    release: () => {
      released = true;
      return lease.release();
    },
  };
}

/**
 * Runs `use` on the history at `where`, shared with whoever holds it open in this process (a watcher),
 * else opened for the call and closed after. With `ifExists`, a history file never written is not made
 * for the call (undefined then): an erase has nothing to do there.
 */
export async function useHistory<T>(where: HistoryLocation, use: (store: HistoryStore) => Promise<T>, options: { ifExists?: boolean } = {}): Promise<T | undefined> {
  if (options.ifExists && !/^postgres(ql)?:\/\//i.test(where.location) && !existsSync(where.location)) return undefined;
  const lease = acquireHistory(where);
  try {
    return await use(await lease.store());
  } finally {
    await lease.release();
  }
}

/** Whether the history at `where` opens (its tables made or checked): undefined when it does, else why not, without secrets. */
export async function historyProblem(where: HistoryLocation): Promise<string | undefined> {
  try {
    await useHistory(where, async () => undefined);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A host application's own history file: `appFolder` (e.g. '.n8n') in the folder `userFolderVar` names, else the home folder, then `vision-streaming/history.sqlite`. */
export function appHistoryFile(userFolderVar: string, appFolder: string): string {
  return path.join(process.env[userFolderVar] || os.homedir(), appFolder, 'vision-streaming', 'history.sqlite');
}
