import { constants as fsc, promises as fs } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ClientError, errorBrand, type ClientErrorDetails } from '../errors';

/** Where to look for an ffmpeg binary. */
export interface FfmpegLookup {
  /** An explicit path; when given, nothing else is tried. */
  ffmpegPath?: string;
  /** Environment to read FFMPEG_PATH and PATH from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Directory where a non-executable packaged binary is copied. It must belong to this user and be
   * writable by nobody else (default: a private per-user directory in the OS temp dir, mode 0700).
   */
  cacheDir?: string;
}

/** Thrown when no usable ffmpeg binary can be found; the message lists what was tried. */
export class FfmpegNotFoundError extends ClientError {
  static override readonly brand: symbol = errorBrand('FfmpegNotFoundError');

  /** The error for the places tried, with a message that lists them and says what to do. */
  static from(tried: string[]): FfmpegNotFoundError {
    const message = `no usable ffmpeg binary found (tried: ${tried.join('; ')}). Pass ffmpegPath, set FFMPEG_PATH, put ffmpeg on PATH, or install @ffmpeg-installer/linux-x64.`;
    return new FfmpegNotFoundError('ffmpeg_not_found', message, { tried });
  }

  override readonly name: string = 'FfmpegNotFoundError';
  declare readonly code: 'ffmpeg_not_found';
  /** Each place looked at and why it did not serve. */
  readonly tried: string[];

  constructor(code: 'ffmpeg_not_found', message: string, details: ClientErrorDetails & { tried: string[] }) {
    super(code, message, details);
    this.tried = details.tried;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), tried: this.tried };
  }
}

const PACKAGED = '@ffmpeg-installer/linux-x64';

/**
 * Finds an ffmpeg binary: the explicit option, FFMPEG_PATH, `ffmpeg` on PATH, then the optional
 * npm package. That package's binary may lack the executable bit (install scripts off), so it is
 * copied to a cache directory and made executable there; node_modules is never modified.
 */
export async function findFfmpeg(lookup: FfmpegLookup = {}): Promise<string> {
  const env = lookup.env ?? process.env;
  const tried: string[] = [];
  if (lookup.ffmpegPath) {
    if (await isExecutable(lookup.ffmpegPath)) return lookup.ffmpegPath;
    throw FfmpegNotFoundError.from([`option ffmpegPath=${lookup.ffmpegPath}: not an executable file`]);
  }
  if (env.FFMPEG_PATH) {
    if (await isExecutable(env.FFMPEG_PATH)) return env.FFMPEG_PATH;
    tried.push(`FFMPEG_PATH=${env.FFMPEG_PATH}: not an executable file`);
  } else {
    tried.push('FFMPEG_PATH: not set');
  }
  const onPath = await searchPath('ffmpeg', env.PATH ?? '');
  if (onPath) return onPath;
  tried.push('PATH: no ffmpeg');
  const packaged = await fromPackage(lookup.cacheDir ?? defaultCacheDir(), tried);
  if (packaged) return packaged;
  throw FfmpegNotFoundError.from(tried);
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return false;
    await fs.access(file, fsc.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function searchPath(name: string, pathVar: string): Promise<string | undefined> {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function fromPackage(cacheDir: string, tried: string[]): Promise<string | undefined> {
  let pkgDir: string;
  try {
    pkgDir = path.dirname(require.resolve(`${PACKAGED}/package.json`));
  } catch {
    tried.push(`${PACKAGED}: not installed`);
    return undefined;
  }
  const binary = path.join(pkgDir, 'ffmpeg');
  try {
    return await executableCopy(binary, cacheDir);
  } catch (err) {
    tried.push(`${PACKAGED}: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * The default cache: one private directory per user, directly in the (sticky) temp directory so no
 * other user can rename it away; its owner and mode are checked before a file in it is trusted.
 */
function defaultCacheDir(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : os.userInfo().username;
  return path.join(os.tmpdir(), `n8n-nodes-vision-streaming-ffmpeg-${user}`);
}

/**
 * Returns `binary` when it is executable; otherwise an executable copy of it in `cacheDir`
 * (made once, reused). The copy's name carries size and mtime so an upgraded binary gets a fresh one.
 * A copy is only trusted in a directory this user owns and nobody else can write to; it is written
 * under a random name and renamed into place, so no one runs a half-written or swapped file.
 */
export async function executableCopy(binary: string, cacheDir: string): Promise<string> {
  const st = await fs.stat(binary);
  if (await isExecutable(binary)) return binary;
  await privateDirectory(cacheDir);
  const tag = createHash('sha1').update(`${binary}:${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 12);
  const target = path.join(cacheDir, `${path.basename(binary)}-${tag}`);
  if ((await trustedFile(target)) && (await isExecutable(target))) return target;
  const partial = `${target}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await fs.copyFile(binary, partial, fsc.COPYFILE_EXCL);
    await fs.chmod(partial, 0o700);
    await fs.rename(partial, target);
  } catch (err) {
    await fs.rm(partial, { force: true });
    throw err;
  }
  return target;
}

/** Creates `dir` (mode 0700) if needed and checks that it is a real directory only this user can write to. */
async function privateDirectory(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await fs.lstat(dir);
  if (!st.isDirectory()) throw new ClientError('unsafe_cache_dir', `cache directory ${dir} is not a directory (a symbolic link is not accepted)`);
  const problem = ownershipProblem(st);
  if (problem) throw new ClientError('unsafe_cache_dir', `cache directory ${dir} ${problem}; pass another cacheDir`);
}

/** True when `file` exists as a regular file of this user that nobody else can write to. */
async function trustedFile(file: string): Promise<boolean> {
  let st: Awaited<ReturnType<typeof fs.lstat>>;
  try {
    st = await fs.lstat(file);
  } catch {
    return false;
  }
  // Anything else is replaced by a fresh copy (the rename swaps it out atomically).
  return st.isFile() && ownershipProblem(st) === undefined;
}

function ownershipProblem(st: { uid: number; mode: number }): string | undefined {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return `belongs to user ${st.uid}, not to this user (${uid})`;
  if ((st.mode & 0o022) !== 0) return 'is writable by group or others';
  return undefined;
}
