import { constants as fsc, promises as fs } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** Where to look for an ffmpeg binary. */
export interface FfmpegLookup {
  /** An explicit path; when given, nothing else is tried. */
  ffmpegPath?: string;
  /** Environment to read FFMPEG_PATH and PATH from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Directory where a non-executable packaged binary is copied (default: os temp dir). */
  cacheDir?: string;
}

/** Thrown when no usable ffmpeg binary can be found; the message lists what was tried. */
export class FfmpegNotFoundError extends Error {
  /** Each place looked at and why it did not serve. */
  readonly tried: string[];

  constructor(tried: string[]) {
    super(
      `no usable ffmpeg binary found (tried: ${tried.join('; ')}). ` +
        'Pass ffmpegPath, set FFMPEG_PATH, put ffmpeg on PATH, or install @ffmpeg-installer/linux-x64.',
    );
    this.name = 'FfmpegNotFoundError';
    this.tried = tried;
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
    throw new FfmpegNotFoundError([`option ffmpegPath=${lookup.ffmpegPath}: not an executable file`]);
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
  const packaged = await fromPackage(lookup.cacheDir ?? os.tmpdir(), tried);
  if (packaged) return packaged;
  throw new FfmpegNotFoundError(tried);
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
 * Returns `binary` when it is executable; otherwise an executable copy of it in `cacheDir`
 * (made once, reused). The copy's name carries size and mtime so an upgraded binary gets a fresh one.
 */
export async function executableCopy(binary: string, cacheDir: string): Promise<string> {
  const st = await fs.stat(binary);
  if (await isExecutable(binary)) return binary;
  const tag = createHash('sha1').update(`${binary}:${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 12);
  const target = path.join(cacheDir, `${path.basename(binary)}-${tag}`);
  if (await isExecutable(target)) return target;
  await fs.mkdir(cacheDir, { recursive: true });
  // Copy under a private name, then rename: concurrent processes never run a half-written file.
  const partial = `${target}.${process.pid}.partial`;
  await fs.copyFile(binary, partial);
  await fs.chmod(partial, 0o755);
  await fs.rename(partial, target);
  return target;
}
