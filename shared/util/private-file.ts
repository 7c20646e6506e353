import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { access, link, lstat, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ClientError, errorBrand, InputError, type ClientErrorDetails } from '../errors';
import { trustProblem } from './trust';

/** 0 where the platform has no such flag (Windows): there the checks by owner and mode are skipped too. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/**
 * Opening a FIFO to read waits for a writer, and a terminal may become the controlling one: with
 * these the open returns at once and fstat refuses what is not a regular file. No effect on reading a regular file.
 */
const O_NOWAIT = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** How a private file is named in errors, and which field the InputError names. */
export interface PrivateFileLabel {
  /** The InputError's field, e.g. 'people'. */
  field: string;
  /** How a message names the file, e.g. 'the people file /home/a/people.json'. */
  name: string;
  /** What another user could do through the file, said when it is not trusted, e.g. 'it could list faces of anyone for removal'. */
  risk?: string;
}

/**
 * A file of state that decides what is removed from or said about someone's face collection, so it
 * is trusted only as ssh trusts its keys: a regular file (never a link), owned by this user, in a
 * folder owned by this user (or root), neither writable by anyone else. Writes go to a new file of
 * an unpredictable name in the same folder (exclusive, 0600) renamed over the old one, so a crash
 * never leaves half a file. Every refusal is an InputError that names the file and the rule.
 */
export class PrivateFile {
  readonly #file: string;
  readonly #label: PrivateFileLabel;
  readonly #maxBytes: number;

  /** `maxBytes`: the largest file read. */
  constructor(file: string, label: PrivateFileLabel, maxBytes = 4 * 1024 * 1024) {
    this.#file = path.resolve(file);
    this.#label = label;
    this.#maxBytes = maxBytes;
  }

  /** The absolute path. */
  get path(): string {
    return this.#file;
  }

  /** Creates the folder when missing (0700, with its parents) and checks it: a real folder of this user's that nobody else may write. */
  async prepareFolder(): Promise<void> {
    const folder = path.dirname(this.#file);
    await mkdir(folder, { recursive: true, mode: 0o700 }).catch(() => undefined);
    await this.checkFolder();
  }

  /** Refuses a folder that is a link, is not ours (or root's), others may write, or we cannot write. */
  async checkFolder(): Promise<void> {
    const folder = path.dirname(this.#file);
    let stats: Stats;
    try {
      stats = await lstat(folder);
    } catch (err) {
      throw this.#refused(`: its folder cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'a file in an existing folder');
    }
    if (!stats.isDirectory()) throw this.#refused(`: its folder ${folder} is a symbolic link or not a folder`, 'a file in a real folder');
    this.#checkOwnership(stats, `its folder ${folder}`, true);
    await access(folder, constants.W_OK).catch(() => {
      throw this.#refused(': its folder is not writable', 'a writable folder');
    });
  }

  /** The file's text; undefined when there is no file. Refuses a link, anything but a regular file (at once: a FIFO is not waited on), another user's file, one others may write, or one too large. */
  async read(): Promise<string | undefined> {
    let handle;
    try {
      handle = await open(this.#file, constants.O_RDONLY | O_NOFOLLOW | O_NOWAIT);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw this.#refused(' is a symbolic link; give the file itself', 'a regular file');
      throw this.#refused(` cannot be read (${code ?? 'error'})`, 'a readable file');
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw this.#refused(' is not a regular file', 'a regular file');
      this.#checkOwnership(stats, 'the file');
      if (stats.size > this.#maxBytes) throw this.#refused(` is larger than ${this.#maxBytes} bytes`, `at most ${this.#maxBytes} bytes`);
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  }

  /** The file's JSON document; undefined when there is no file. Refuses as read() does, and text that is not JSON (`expected`: what the file should be). */
  async readJson(expected: string): Promise<unknown> {
    const text = await this.read();
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      // The parser's message quotes the text: it is not repeated.
      throw this.#refused(' is not JSON', expected);
    }
  }

  /** Writes `text` to a new file (exclusive, 0600, unpredictable name) beside the old one and renames it over it. */
  async write(text: string): Promise<void> {
    const temporary = path.join(path.dirname(this.#file), `.${path.basename(this.#file)}.${randomBytes(12).toString('hex')}.tmp`);
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
    try {
      try {
        await handle.writeFile(text);
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

  /** An InputError naming the file: `why` follows its name. */
  refused(why: string, expected: string): InputError {
    return this.#refused(why, expected);
  }

  /** As ssh does with its keys: refused when another user owns it or may write it. */
  #checkOwnership(stats: Stats, what: string, rootMayOwn = false): void {
    const problem = trustProblem(stats, rootMayOwn);
    const risk = this.#label.risk ? `; ${this.#label.risk}` : '';
    if (problem?.kind === 'owner') throw this.#refused(`: ${what} belongs to another user (uid ${problem.uid})${risk}`, 'a file and folder of your own');
    if (problem?.kind === 'writable') throw this.#refused(`: ${what} can be written by other users (mode ${problem.mode})${risk}: chmod go-w it`, 'writable by you alone');
  }

  #refused(why: string, expected: string): InputError {
    return new InputError('invalid_input', `${this.#label.name}${why}`, { field: this.#label.field, limit: expected });
  }
}

/** Waiting for a lock another process holds took too long. */
export class FileLockError extends ClientError {
  static override readonly brand: symbol = errorBrand('FileLockError');

  override readonly name: string = 'FileLockError';
  declare readonly code: 'file_locked';

  /** Retryable unless details say otherwise: the other writer lets go in time. */
  constructor(code: 'file_locked', message: string, details: ClientErrorDetails = {}) {
    super(code, message, { ...details, retryable: details.retryable ?? true });
  }
}

/** How long a lock may be held before another process takes it as left by a crash. */
const STALE_LOCK_MS = 10_000;
/** How long to wait for a lock before giving up. */
const LOCK_WAIT_MS = 15_000;
/** Pause between two tries, plus up to as much again at random so that waiters do not move in step. */
const LOCK_RETRY_MS = 15;

/**
 * Runs `work` holding `${file}.lock`, a lock file created exclusively (O_EXCL, never through a link),
 * so that processes writing the same file take turns. A lock older than a few seconds was left by a
 * process that died holding it and is taken over; the holders here keep it for milliseconds.
 */
export async function withFileLock<T>(file: string, work: () => Promise<T>, o: { staleMs?: number; waitMs?: number; name?: string } = {}): Promise<T> {
  const lock = `${path.resolve(file)}.lock`;
  const staleMs = o.staleMs ?? STALE_LOCK_MS;
  const giveUpAt = Date.now() + (o.waitMs ?? LOCK_WAIT_MS);
  const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  for (;;) {
    try {
      const handle = await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
      await handle.writeFile(token).finally(() => handle.close());
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    await breakIfStale(lock, staleMs);
    if (Date.now() > giveUpAt) throw new FileLockError('file_locked', `${o.name ?? file} is locked by another writer (${path.basename(lock)}) for longer than ${Math.round((o.waitMs ?? LOCK_WAIT_MS) / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS + Math.random() * LOCK_RETRY_MS));
  }
  try {
    return await work();
  } finally {
    // A holder that outlived the stale time may have lost the lock to another writer: only its own is removed.
    if ((await readFile(lock, 'utf8').catch(() => undefined)) === token) await unlink(lock).catch(() => undefined);
  }
}

/**
 * Removes a lock older than `staleMs`. It is first renamed to a name of its own, so two waiters
 * that both found it stale cannot remove each other's new lock: the one whose rename caught a lock
 * younger than the stale one puts it back.
 */
async function breakIfStale(lock: string, staleMs: number): Promise<void> {
  let before: Stats;
  try {
    before = await lstat(lock);
  } catch {
    return;
  }
  if (Date.now() - before.mtimeMs < staleMs) return;
  const aside = `${lock}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lock, aside);
  } catch {
    return;
  }
  const taken = await stat(aside).catch(() => undefined);
  if (taken && taken.ino !== before.ino) {
    // A fresh lock of another process: give it back (link fails if a third one locked meanwhile).
    await link(aside, lock).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    return;
  }
  await unlink(aside).catch(() => undefined);
}
