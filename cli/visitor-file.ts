import { access, constants, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../shared/errors';
import type { VisitorDocument, VisitorStore } from '../shared/watch';

/**
 * The visitors the command's watcher enrolled, kept in a JSON file (--visitors FILE): written to a
 * file beside it and renamed, so a crash never leaves half a file.
 */
export class VisitorFile implements VisitorStore {
  readonly #file: string;

  constructor(file: string) {
    this.#file = path.resolve(file);
  }

  /** Before the watch starts: a file that is not a visitor list, or a folder it cannot write in, is an InputError naming --visitors. */
  async check(): Promise<void> {
    const doc = await this.load().catch((err: unknown) => {
      throw new InputError('visitors', `--visitors ${this.#file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'a readable JSON file');
    });
    if (doc !== undefined && (doc as Partial<VisitorDocument>).kind !== 'vision-streaming-visitors') {
      throw new InputError('visitors', `--visitors ${this.#file} is not a visitor list of vision-streaming`, 'a file this command wrote, or a new one');
    }
    await access(path.dirname(this.#file), constants.W_OK).catch(() => {
      throw new InputError('visitors', `--visitors ${this.#file}: its folder is not writable`, 'a writable folder');
    });
  }

  async load(): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return JSON.parse(text);
  }

  async save(document: VisitorDocument): Promise<void> {
    const temporary = `${this.#file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(document, null, 2)}\n`);
    await rename(temporary, this.#file);
  }
}
