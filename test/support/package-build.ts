import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The package as the hosts load it (dist/) and the n8n Cloud package, built once per jest run for
// every test file that needs them, n8n's and Node-RED's alike. Nothing from a host is loaded here.

/** Root of the package (its package.json and dist/). */
export const PACKAGE_DIR = resolve(__dirname, '..', '..');

/** What tsc and copy-assets make dist/ from (tsconfig.build.json's folders and settings, the copy script). */
const BUILD_INPUTS = ['shared', 'cli', 'sandbox', 'nodes', 'credentials', 'node-red', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'scripts/copy-assets.mjs', 'package.json'];

/**
 * Builds the package (tsc into dist/) once per jest run, guarded by a lock folder so that two jest
 * workers do not write the same files at once: a run tests the sources as they were when it began,
 * and an incremental tsc with nothing to do still takes seconds of CPU for each test file. A dist/
 * built after every input last changed (as `npm run build` just before `npm test` leaves it, in CI)
 * is used as it is: tsc would only read it all to find nothing to do.
 */
export function buildPackage(): void {
  withBuildLock(() => {
    const marker = join(PACKAGE_DIR, 'dist', '.test-build');
    if (readIfExists(marker) === testRun()) return;
    const built = Math.max(mtimeOf(join(PACKAGE_DIR, 'dist', '.tsbuildinfo')), mtimeOf(marker));
    if (built > 0 && BUILD_INPUTS.every((input) => newestIn(join(PACKAGE_DIR, input)) < built)) {
      writeFileSync(marker, testRun());
      return;
    }
    const node = process.execPath;
    execFileSync(node, [join(PACKAGE_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(PACKAGE_DIR, 'tsconfig.build.json')], { cwd: PACKAGE_DIR, stdio: 'pipe' });
    execFileSync(node, [join(PACKAGE_DIR, 'scripts', 'copy-assets.mjs')], { cwd: PACKAGE_DIR, stdio: 'pipe' });
    writeFileSync(marker, testRun());
  });
}

/** This jest run's id (test/support/global-setup.js); the parent process's id when run without it. */
function testRun(): string {
  return process.env.VS_TEST_RUN ?? `parent-${process.ppid}`;
}

/** A file's modification time in ms; 0 when it is missing. */
function mtimeOf(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** The latest modification time of a file, or of a folder and everything under it; 0 when missing. */
function newestIn(path: string): number {
  const found = statSync(path, { throwIfNoEntry: false });
  if (!found) return 0;
  if (!found.isDirectory()) return found.mtimeMs;
  // The folder's own time counts: a file deleted from it changes that, and nothing else.
  let newest = found.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) newest = Math.max(newest, newestIn(join(path, entry.name)));
  return newest;
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

function withBuildLock<T>(build: () => T, folder = join(PACKAGE_DIR, 'dist')): T {
  const lock = join(folder, '.test-build.lock');
  mkdirSync(folder, { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another worker is building; a lock older than the deadline is a crashed build.
      if (Date.now() > deadline || Date.now() - statSync(lock).mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return build();
  } finally {
    rmdirSync(lock);
  }
}

/**
 * Builds the live view's browser widget (dashboard/, with Vite, as `npm run build:widget` does) once
 * per jest run into dashboard/resources/, and returns the built file's path. `root` is the checkout
 * (bench:live runs this from dist/).
 */
export function buildWidget(root = PACKAGE_DIR): string {
  const folder = join(root, 'dashboard', 'resources');
  const built = join(folder, 'vision-streaming-live.umd.js');
  return withBuildLock(() => {
    const marker = join(root, 'dashboard', '.test-build');
    if (readIfExists(marker) === testRun() && existsSync(built)) return built;
    // As npm run build makes it: jest sets NODE_ENV=test, which would make Vite build for development (with source paths in it).
    const env = { ...process.env, NODE_ENV: 'production' };
    execFileSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', join(root, 'dashboard', 'vite.config.mts')], { cwd: root, stdio: 'pipe', env });
    writeFileSync(marker, testRun());
    return built;
  }, join(root, 'dashboard'));
}

/** Folder of the n8n Cloud package as packed (build/cloud/package), built from the same sources. */
export const CLOUD_PACKAGE_DIR = join(PACKAGE_DIR, 'build', 'cloud', 'package');

/**
 * Builds the n8n Cloud package with its own script and returns the tarball's path: once per jest
 * run, since a second build would replace files another worker is reading.
 */
export function buildCloudPackage(): string {
  return withBuildLock(() => {
    const marker = join(PACKAGE_DIR, 'build', 'cloud', '.test-build');
    const [run, built] = (readIfExists(marker) ?? '').split('\n');
    if (run === testRun() && built) return built;
    const tarball = execFileSync(process.execPath, [join(PACKAGE_DIR, 'scripts', 'pack-cloud.js')], { cwd: PACKAGE_DIR, encoding: 'utf8' }).trim().split('\n').pop() as string;
    writeFileSync(marker, `${testRun()}\n${tarball}`);
    return tarball;
  });
}
