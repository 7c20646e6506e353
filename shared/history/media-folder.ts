import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors';
import { trustProblem } from '../util/trust';
import type { MediaKind } from './types';

/** 0 where the platform has no such flag (Windows): there the checks by owner and mode are skipped too. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NOWAIT = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Largest media file kept (a clip of a long visit stays well below it). */
export const MAX_MEDIA_BYTES = 256 * 1024 * 1024;

/** File endings by type; any other type is kept as `.bin`. */
const ENDINGS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'video/mp4': 'mp4', 'video/webm': 'webm', 'video/x-matroska': 'mkv' };

/** The only names this folder makes: `<2 hex>/<32 hex>-<kind>.<ending>`. */
const NAME = /^[0-9a-f]{2}\/[0-9a-f]{32}-(face|snapshot|clip)\.(jpg|png|webp|mp4|webm|mkv|bin)$/;

/**
 * The history's media: crops, snapshots and clips as files 0600 in folders 0700, trusted as the
 * people file is (never a link, nothing of another user's or that others may write), with names
 * made only from a hash of the visit id and the media kind, so nothing a caller gives picks a path.
 */
export class MediaFolder {
  readonly root: string;
  readonly #field: string;

  /** `field`: what an InputError about the folder names (the setting that chose it). */
  constructor(root: string, field = 'media') {
    this.root = path.resolve(root);
    this.#field = field;
  }

  /** Creates the folder when missing (0700; its parent must exist) and checks it. */
  async prepare(): Promise<void> {
    await mkdir(this.root, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw this.#refused(`the media folder ${this.root} cannot be made (${err.code ?? 'error'})`, 'a folder whose parent exists');
    });
    await this.#checkFolder(this.root);
  }

  /** The name a visit's media of this kind gets. */
  nameOf(visitId: string, kind: MediaKind, mime: string): string {
    const hash = createHash('sha256').update(visitId).digest('hex').slice(0, 32);
    return `${hash.slice(0, 2)}/${hash}-${kind}.${ENDINGS[mime] ?? 'bin'}`;
  }

  /** The absolute path of a name this folder made; any other name is refused. */
  pathOf(name: string): string {
    if (typeof name !== 'string' || !NAME.test(name)) throw new InputError('invalid_input', `${describeName(name)} is not a media name of this history`, { field: 'media', limit: 'a name the history gave' });
    return path.join(this.root, ...name.split('/'));
  }

  /** Writes the bytes under `name`: a new file (exclusive, 0600) renamed over the old one, so a crash never leaves half a file. */
  async write(name: string, bytes: Buffer): Promise<void> {
    const file = this.pathOf(name);
    const folder = path.dirname(file);
    await mkdir(folder, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    await this.#checkFolder(folder);
    const temporary = path.join(folder, `.${randomBytes(12).toString('hex')}.tmp`);
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (err) {
      await unlink(temporary).catch(() => undefined);
      throw err;
    }
  }

  /** The file's bytes, refused when it is a link, not a regular file, another user's or writable by others. */
  async read(name: string): Promise<Buffer> {
    const file = this.pathOf(name);
    let handle;
    try {
      handle = await open(file, constants.O_RDONLY | O_NOFOLLOW | O_NOWAIT);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw this.#refused(`the media file ${file} is a symbolic link`, 'a regular file');
      throw this.#refused(`the media file ${file} cannot be read (${code ?? 'error'})`, 'a readable file');
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw this.#refused(`the media file ${file} is not a regular file`, 'a regular file');
      this.#checkTrust(stats, `the media file ${file}`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /** Removes the file; true when it was there. */
  async remove(name: string): Promise<boolean> {
    try {
      await unlink(this.pathOf(name));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async #checkFolder(folder: string): Promise<void> {
    let stats: Stats;
    try {
      stats = await lstat(folder);
    } catch (err) {
      throw this.#refused(`the media folder ${folder} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'an existing folder');
    }
    if (!stats.isDirectory()) throw this.#refused(`the media folder ${folder} is a symbolic link or not a folder`, 'a real folder');
    this.#checkTrust(stats, `the media folder ${folder}`);
  }

  #checkTrust(stats: Stats, what: string): void {
    const problem = trustProblem(stats);
    if (problem?.kind === 'owner') throw this.#refused(`${what} belongs to another user (uid ${problem.uid}); it could plant or read faces`, 'a file and folder of your own');
    if (problem?.kind === 'writable') throw this.#refused(`${what} can be written by other users (mode ${problem.mode}): chmod go-w it`, 'writable by you alone');
  }

  #refused(message: string, limit: string): InputError {
    return new InputError('invalid_input', message, { field: this.#field, limit });
  }
}

function describeName(name: unknown): string {
  return typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : typeof name;
}
