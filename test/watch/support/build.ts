import { createHash } from 'node:crypto';
import { copyFile, cp, mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TEST_CACHE } from '../../support/images';
import { keptFolder } from '../../support/test-cache';

const ROOT = path.join(__dirname, '..', '..', '..');
/** What the package is made from: its sources, and the bin that runs them. */
const SOURCES = ['shared', 'cli'];
const BIN = path.join('bin', 'vision-streaming.js');
/** A kept build nobody has used for this long is removed when another is made. */
const KEEP_UNUSED_MS = 24 * 3600_000;

/**
 * Lays out the package as `npm run build` would, in `dir`: shared/ transpiled to dist/shared (file by
 * file: the project compiles with isolatedModules, so this gives what tsc emits, minus the type check
 * the test suite runs anyway), bin/ copied, node_modules linked. The transpiled files are made once
 * per version of the sources and kept in TEST_CACHE (seven test files need them, and transpiling
 * takes seconds of CPU on a loaded machine); each caller gets its own copy.
 */
export async function buildPackage(dir: string): Promise<{ bin: string }> {
  const sources = await sourceFiles();
  const made = await keptFolder(`package-${packageKey(sources)}`, async (work) => {
    await pruneUnused();
    await transpile(sources, work);
  });
  // Marks it used, so that pruning (below) leaves it alone.
  const now = new Date();
  await utimes(made, now, now).catch(() => undefined);
  await cp(path.join(made, 'dist'), path.join(dir, 'dist'), { recursive: true });
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  const bin = path.join(dir, BIN);
  await copyFile(path.join(ROOT, BIN), bin);
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return { bin };
}

interface Source {
  /** Path from the package root. */
  rel: string;
  text: string;
}

/** Every TypeScript source of the package (not .d.ts), read. */
async function sourceFiles(): Promise<Source[]> {
  const found: Source[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(path.join(ROOT, rel), { withFileTypes: true })) {
      const from = path.join(rel, entry.name);
      if (entry.isDirectory()) await walk(from);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push({ rel: from, text: await readFile(path.join(ROOT, from), 'utf8') });
    }
  };
  for (const top of SOURCES) await walk(top);
  return found.sort((a, b) => (a.rel < b.rel ? -1 : 1));
}

/** tsconfig's spelling of the options; the compiler is loaded only to transpile (it takes seconds to load). */
const OPTIONS = { target: 'ES2023', module: 'CommonJS', esModuleInterop: true, sourceMap: false };

/** A key of everything the transpiled files are made from: the sources, this file, the compiler. */
function packageKey(sources: Source[]): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(require.resolve('typescript/package.json')));
  hash.update(JSON.stringify(OPTIONS));
  hash.update(transpile.toString());
  for (const s of sources) hash.update(`${s.rel}\0${s.text}\0`);
  return hash.digest('hex').slice(0, 32);
}

async function transpile(sources: Source[], into: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  const compilerOptions = ts.convertCompilerOptionsFromJson(OPTIONS, ROOT).options;
  for (const { rel, text } of sources) {
    const out = ts.transpileModule(text, { compilerOptions, fileName: rel });
    const target = path.join(into, 'dist', rel.replace(/\.ts$/, '.js'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, out.outputText);
  }
}

/** Removes the kept builds of sources nobody has tested for a day (each edit of the sources makes one). */
async function pruneUnused(): Promise<void> {
  for (const name of await readdir(TEST_CACHE).catch(() => [] as string[])) {
    if (!name.startsWith('package-')) continue;
    const full = path.join(TEST_CACHE, name);
    const seen = await stat(full).catch(() => undefined);
    if (seen && Date.now() - seen.mtimeMs > KEEP_UNUSED_MS) await rm(full, { recursive: true, force: true });
  }
}
