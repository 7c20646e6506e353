import { hkdfSync } from 'node:crypto';
import path from 'node:path';
import { InputError } from '../shared/errors';
import { PrivateFile } from '../shared/util/private-file';
import type { VisitorDocument, VisitorStore } from '../shared/watch';

/**
 * The visitors the command's watcher enrolled, kept in a JSON file (--visitors FILE). The file says
 * which faces the watcher may remove from the collection, so it is a private file (trusted only as
 * ssh trusts its keys, replaced whole on each write) sealed with a key derived from the client secret.
 */
export class VisitorFile implements VisitorStore {
  readonly #file: PrivateFile;
  readonly name: string;
  readonly key?: Uint8Array;

  /** `credentials`: the client secret (and id), from which the file's seal key is derived; without them the file is not sealed. */
  constructor(file: string, credentials?: { clientId: string; clientSecret: string }) {
    const absolute = path.resolve(file);
    this.#file = new PrivateFile(absolute, { field: 'visitors', name: `--visitors ${absolute}`, risk: 'it could list faces of anyone for removal' });
    this.name = this.#file.path;
    if (credentials) this.key = Buffer.from(hkdfSync('sha256', credentials.clientSecret, 'vision-streaming visitors', credentials.clientId, 32));
  }

  /** Before the watch starts: a file that is not a visitor list, another user can write, or whose folder cannot be written is an InputError naming --visitors. */
  async check(): Promise<void> {
    await this.#file.checkFolder();
    const doc = await this.load();
    if (doc !== undefined && (typeof doc !== 'object' || doc === null || (doc as Partial<VisitorDocument>).kind !== 'vision-streaming-visitors')) {
      throw new InputError('invalid_input', `--visitors ${this.name} is not a visitor list of vision-streaming`, { field: 'visitors', limit: 'a file this command wrote, or a new one' });
    }
  }

  /** The file's document, undefined when there is no file; refuses a file that is not trusted (InputError naming --visitors). */
  load(): Promise<unknown> {
    return this.#file.readJson('a file this command wrote, or a new one');
  }


  /** Writes the document to a new file (exclusive, 0600, unpredictable name) beside the old one and renames it over it. */
  save(document: VisitorDocument): Promise<void> {
    return this.#file.write(`${JSON.stringify(document, null, 2)}\n`);
  }
}
