import { hkdfSync, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { access, lstat, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../shared/errors';
import type { VisitorDocument, VisitorStore } from '../shared/watch';
import { trustProblem } from './trusted-path';

/** Largest visitors file read: 1000 visitors take well under 1 MiB. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** 0 where the platform has no such flag (Windows): there the checks by owner and mode are skipped too (trustProblem). */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The visitors the command's watcher enrolled, kept in a JSON file (--visitors FILE). The file says
 * which faces the watcher may remove from the collection, so it is trusted only as ssh trusts its
 * keys: owned by this user, in a folder owned by this user (or root), neither writable by anyone
 * else, and sealed with a key derived from the client secret. It is written to a new file of an
 * unpredictable name in the same folder (created exclusively, mode 0600, never through a link) and
 * renamed over the old one, so a crash never leaves half a file.
 */
export class VisitorFile implements VisitorStore {
  readonly #file: string;
  readonly name: string;
  readonly key?: Uint8Array;

  /** `secret`: the client secret (and id), from which the file's seal key is derived; without it the file is not sealed. */
  constructor(file: string, credentials?: { clientId: string; clientSecret: string }) {
    this.#file = path.resolve(file);
    this.name = this.#file;
    if (credentials) this.key = Buffer.from(hkdfSync('sha256', credentials.clientSecret, 'vision-streaming visitors', credentials.clientId, 32));
  }

  /** Before the watch starts: a file that is not a visitor list, another user can write, or whose folder cannot be written is an InputError naming --visitors. */
  async check(): Promise<void> {
    await this.#checkFolder();
    const doc = await this.load().catch((err: unknown) => {
      if (err instanceof InputError) throw err;
      throw new InputError('invalid_input', `--visitors ${this.#file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, { field: 'visitors', limit: 'a readable JSON file' });
    });
    if (doc !== undefined && (typeof doc !== 'object' || doc === null || (doc as Partial<VisitorDocument>).kind !== 'vision-streaming-visitors')) {
      throw new InputError('invalid_input', `--visitors ${this.#file} is not a visitor list of vision-streaming`, { field: 'visitors', limit: 'a file this command wrote, or a new one' });
    }
  }

  /** The file's document, undefined when there is no file; refuses a file that is not trusted (InputError naming --visitors). */
  async load(): Promise<unknown> {
    let handle;
    try {
      handle = await open(this.#file, constants.O_RDONLY | O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw this.#refused('is a symbolic link; give the file itself', 'a regular file');
      throw err;
    }
    let text: string;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw this.#refused('is not a regular file', 'a regular file');
      this.#checkOwnership(stats, 'the file');
      if (stats.size > MAX_FILE_BYTES) throw this.#refused(`is larger than ${MAX_FILE_BYTES} bytes`, `at most ${MAX_FILE_BYTES} bytes`);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    try {
      return JSON.parse(text);
    } catch {
      // The parser's message quotes the text: it is not repeated.
      throw this.#refused('is not JSON', 'a file this command wrote, or a new one');
    }
  }

  /** Writes the document to a new file (exclusive, 0600, unpredictable name) beside the old one and renames it over it. */
  async save(document: VisitorDocument): Promise<void> {
    const temporary = path.join(path.dirname(this.#file), `.${path.basename(this.#file)}.${randomBytes(12).toString('hex')}.tmp`);
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
    try {
      try {
        await handle.writeFile(`${JSON.stringify(document, null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.#file);
    } catch (err) {
      await unlink(temporary).catch(() => undefined);
      throw err;
    }
  }

  async #checkFolder(): Promise<void> {
    const folder = path.dirname(this.#file);
    let stats: Stats;
    try {
      stats = await lstat(folder);
    } catch (err) {
      throw new InputError('invalid_input', `--visitors ${this.#file}: its folder cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { field: 'visitors', limit: 'a file in an existing folder' });
    }
    if (!stats.isDirectory()) throw new InputError('invalid_input', `--visitors ${this.#file}: its folder ${folder} is a symbolic link or not a folder`, { field: 'visitors', limit: 'a file in a real folder' });
    this.#checkOwnership(stats, `its folder ${folder}`, true);
    await access(folder, constants.W_OK).catch(() => {
      throw new InputError('invalid_input', `--visitors ${this.#file}: its folder is not writable`, { field: 'visitors', limit: 'a writable folder' });
    });
  }

  /** As ssh does with its keys: refused when another user owns it or may write it. */
  #checkOwnership(stats: Stats, what: string, rootMayOwn = false): void {
    const problem = trustProblem(stats, rootMayOwn);
    if (problem?.kind === 'owner') {
      throw new InputError('invalid_input', `--visitors ${this.#file}: ${what} belongs to another user (uid ${problem.uid}); it could list faces of anyone for removal`, { field: 'visitors', limit: 'a file and folder of your own' });
    }
    if (problem?.kind === 'writable') {
      throw new InputError('invalid_input', `--visitors ${this.#file}: ${what} can be written by other users (mode ${problem.mode}); it could list faces of anyone for removal: chmod go-w it`, { field: 'visitors', limit: 'writable by you alone' });
    }
  }

  #refused(why: string, expected: string): InputError {
    return new InputError('invalid_input', `--visitors ${this.#file} ${why}`, { field: 'visitors', limit: expected });
  }
}
