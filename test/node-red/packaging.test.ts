import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SERVICE_URLS } from '../../shared/service-urls';
import { buildPackage } from '../support/package-build';

/**
 * The packed package, installed into a Node-RED user directory and loaded by Node-RED's own
 * runtime and registry (scripts/node-red-load.js, in a child process): what a user installing
 * the tarball gets. Dependencies are linked from this checkout instead of downloaded.
 */

const ROOT = resolve(__dirname, '..', '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
  'node-red': { nodes: Record<string, string> };
};
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const LOAD = join(ROOT, 'scripts', 'node-red-load.js');

let work: string;
let tarball: string;

interface LoadResult {
  code: number | null;
  found?: { sets: { name: string; types: string[]; err?: unknown }[]; examples: unknown; problems: string[] };
  stderr: string;
}

/** A user directory with the tarball unpacked under node_modules and the dependencies linked. */
function userDir(name: string): string {
  const dir = join(work, name);
  const target = join(dir, 'node_modules', PKG.name);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  for (const dep of [...Object.keys(PKG.dependencies), 'node-red']) {
    const scope = dep.startsWith('@') ? dep.split('/')[0] : undefined;
    if (scope) mkdirSync(join(dir, 'node_modules', scope), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep));
  }
  return dir;
}

function load(dir: string): LoadResult {
  const run = spawnSync(NODE, [LOAD, dir, PKG.name], { encoding: 'utf8', timeout: 120_000 });
  const line = run.stdout.trim().split('\n').pop();
  return { code: run.status, found: line ? JSON.parse(line) : undefined, stderr: run.stderr };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'nr-pack-'));
  // dist/ as this run's other test files have it: built once per run, never removed under them.
  buildPackage();
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [{ filename }] = JSON.parse(pack.stdout) as { filename: string }[];
  tarball = join(work, filename);
}, 900_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('Node-RED loads every node set of the packed package with its editor form, help and icon, and lists the examples', () => {
  const result = load(userDir('intact'));
  expect(result.stderr).toBe('');
  expect(result.found?.problems).toEqual([]);
  expect(result.code).toBe(0);
  const types = result.found!.sets.flatMap((s) => s.types).sort();
  expect(types).toEqual(Object.keys(PKG['node-red'].nodes).sort());
  expect(JSON.stringify(result.found!.examples)).toContain('01 detect faces');
  // Every example flow in the package uses only this package's types and core nodes.
  const dir = join(work, 'intact', 'node_modules', PKG.name, 'examples', 'node-red');
  const core = new Set(['inject', 'debug', 'comment', 'catch', 'change', 'switch', 'function', 'tab', 'http in', 'http request', 'http response']);
  for (const file of readdirSync(dir)) {
    const flow = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { type: string }[];
    for (const node of flow) expect(core.has(node.type) || types.includes(node.type) || node.type.startsWith('ui-')).toBe(true);
  }
}, 180_000);

it('a missing editor .html or a wrong path in package.json fails the load', () => {
  const dir = userDir('broken');
  const pkgDir = join(dir, 'node_modules', PKG.name);
  unlinkSync(join(pkgDir, 'dist', 'node-red', 'detect.html'));
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  pkg['node-red'].nodes['vision-streaming-room'] = 'dist/node-red/rooms.js';
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify(pkg));
  const result = load(dir);
  expect(result.code).toBe(1);
  const problems = result.found!.problems.join('\n');
  expect(problems).toContain('vision-streaming-detect: no editor form');
  expect(problems).toMatch(/vision-streaming-room: .*rooms\.js/);
}, 180_000);

it("the config node's editor defaults are the service addresses every host uses", () => {
  const html = readFileSync(join(__dirname, '..', '..', 'node-red', 'config.html'), 'utf8');
  for (const [field, url] of Object.entries(SERVICE_URLS)) expect(html).toMatch(new RegExp(`${field}: \\{ value: '${url.replace(/\./g, '\\.')}'`));
});
