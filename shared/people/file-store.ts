import { hkdfSync } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { PrivateFile, withFileLock } from '../util/private-file';
import { emptyPeople, readPeople, sealPeople } from './document';
import { PeopleError } from './errors';
import type { PeopleDocument, PeopleStore } from './types';

/** Largest people file read: a thousand people with ten faces each take well under 1 MiB. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** How a FilePeopleStore is set up. */
export interface FilePeopleStoreOptions {
  /** The collection the file is for: a file of another collection, or with a broken seal, is never written over. */
  collectionId?: string;
  /** Seals what is saved (see peopleKey); a file whose seal does not match is refused. */
  key?: Uint8Array;
  /** The InputError's field when the file or its folder is not trusted (default 'people'). */
  field?: string;
}

/** The seal key of a people file, derived from the client secret (and id) the host already keeps secret. */
export function peopleKey(credentials: { clientId?: string; clientSecret: string }): Uint8Array {
  return Buffer.from(hkdfSync('sha256', credentials.clientSecret, 'vision-streaming people', credentials.clientId ?? '', 32));
}

/**
 * The people of one collection, kept in a JSON file (the command line's --people, Node-RED's user
 * directory). The file says whose faces are whose and which faces `forget` removes, so it is trusted
 * only as ssh trusts its keys (see PrivateFile) and sealed with a key of the host's. Every update
 * reads, changes and writes the file holding an exclusive lock file, so two processes writing at
 * once lose nothing; `changed` is signalled after each update of this store, and other processes'
 * updates are seen on the next load.
 */
export class FilePeopleStore extends EventEmitter<{ changed: [] }> implements PeopleStore {
  readonly name: string;
  readonly key?: Uint8Array;
  readonly #file: PrivateFile;
  readonly #collectionId?: string;
  /** Updates of this process one after another: the lock file keeps out other processes, not our own turns. */
  #queue: Promise<unknown> = Promise.resolve();

  /** `file`: the path of the JSON file; its folder is created (0700) on the first update. */
  constructor(file: string, options: FilePeopleStoreOptions = {}) {
    super();
    this.#file = new PrivateFile(file, { field: options.field ?? 'people', name: `the people file ${file}` }, MAX_FILE_BYTES);
    this.name = this.#file.path;
    this.#collectionId = options.collectionId;
    if (options.key) this.key = options.key;
  }

  /** The absolute path of the file. */
  get path(): string {
    return this.#file.path;
  }

  /**
   * The file's document as saved, with its seal: undefined when there is none yet. A file that is
   * not trusted (a link, another user's, writable by others, not JSON) is an InputError naming it.
   * Its collection and seal are checked by the reader (readPeople, as the directory and the watcher
   * do), which names the file when they do not hold; update() checks them itself.
   */
  async load(): Promise<PeopleDocument | undefined> {
    return (await this.#read()) as PeopleDocument | undefined;
  }

  /** Applies `change` to the latest saved document under the file's lock and saves the result, sealed. */
  update(change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument> {
    const run = this.#queue.then(() => this.#update(change));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #update(change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument> {
    await this.#file.prepareFolder();
    const written = await withFileLock(
      this.#file.path,
      async () => {
        const saved = await this.load();
        // A file of another collection or credentials is never written over.
        if (saved !== undefined && this.#collectionId !== undefined) readPeople(saved, this.#collectionId, this);
        // Nothing saved yet: the empty document of a fresh store, which names no collection (and has no seal).
        const current = saved ?? emptyPeople('');
        const next = sealPeople(change(current), this.key);
        if (this.#collectionId !== undefined && next.collectionId !== this.#collectionId) {
          throw new PeopleError('people_store_mismatch', `${this.name} is the people file of ${this.#collectionId.slice(0, 80)}, not of ${String(next.collectionId).slice(0, 80)}`);
        }
        await this.#file.write(`${JSON.stringify(next, null, 2)}\n`);
        return next;
      },
      { name: `the people file ${this.name}` },
    );
    this.emit('changed');
    return structuredClone(written);
  }

  #read(): Promise<unknown> {
    return this.#file.readJson('a file this package wrote, or none');
  }

}
