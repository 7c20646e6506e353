import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCloudPackage } from '../support/package-build';

// The n8n Cloud package as `npm run pack:cloud` packs it: no runtime dependency, nothing n8n's
// scanner rejects (run offline on the tarball and on cloud/, as n8n's verification does), and the
// scanner really fails when a dependency or a forbidden call creeps in.

const ROOT = path.join(__dirname, '..', '..');
let dir: string;

beforeAll(() => {
  const tarball = buildCloudPackage();
  dir = mkdtempSync(path.join(os.tmpdir(), 'cloud-package-'));
  execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every file of the unpacked package, relative to its root. */
function files(root = dir, sub = ''): string[] {
  return readdirSync(path.join(root, sub), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(root, path.join(sub, e.name)) : [path.join(sub, e.name)]));
}

/** Runs scripts/scan-cloud.mjs on an unpacked package folder. */
function scan(folder: string): { status: number | null; result: { passed: boolean }; details: string } {
  // Not in jest's NODE_ENV=test: n8n's lint rules then stand in a fixed file name for the real one.
  const env = { ...process.env, NODE_ENV: 'production' };
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'scan-cloud.mjs'), folder], { cwd: ROOT, encoding: 'utf8', env });
  const last = run.stdout.trim().split('\n').pop() ?? '{}';
  return { status: run.status, result: JSON.parse(last) as { passed: boolean }, details: run.stderr };
}

test('the package has no runtime dependency and holds only compiled code, icons, codex files, README and licence', () => {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest.name).toBe('n8n-nodes-vision-streaming-cloud');
  for (const field of ['dependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies', 'scripts']) expect([field, manifest[field]]).toEqual([field, undefined]);
  expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
  expect(manifest.license).toBe('MIT');
  expect(manifest.version).toBe((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  const all = files();
  expect(all.filter((f) => !/^dist\/.*\.(js|svg|json)$/.test(f)).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
  // Only the action nodes and the credential: no trigger, no Node-RED, no sandbox.
  expect(all.filter((f) => f.endsWith('.node.js')).sort()).toEqual(['dist/cloud/nodes/LiveStreaming/LiveStreaming.node.js', 'dist/cloud/nodes/VisualRecognition/VisualRecognition.node.js', 'dist/nodes/LiveStreaming/LiveStreaming.node.js']);
  const code = all.filter((f) => f.endsWith('.js')).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
  for (const forbidden of [/require\("(undici|ws|werift|sharp|jpeg-js|fs|node:fs|child_process|node:child_process|worker_threads|node:worker_threads)"\)/, /process\.env/, /\bsetTimeout\(/]) {
    expect([String(forbidden), forbidden.test(code)]).toEqual([String(forbidden), false]);
  }
  // The codex names the node by this package.
  expect(JSON.parse(readFileSync(path.join(dir, 'dist/cloud/nodes/VisualRecognition/VisualRecognition.node.json'), 'utf8')).node).toBe('n8n-nodes-vision-streaming-cloud.visualRecognition');
});

test("n8n's community package scanner passes the tarball's files and the package's sources", () => {
  const { status, result, details } = scan(dir);
  // The scanner's findings, when there are any, are on stderr: shown here if it fails.
  expect({ result, details: result.passed ? '' : details }).toMatchObject({ result: { passed: true, dist: { passed: true }, source: { passed: true } }, details: '' });
  expect(status).toBe(0);
}, 120_000);

test('the scanner fails the package once a runtime dependency or a forbidden call creeps in', () => {
  const broken = mkdtempSync(path.join(os.tmpdir(), 'cloud-broken-'));
  try {
    cpSync(dir, broken, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(broken, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(broken, 'package.json'), JSON.stringify({ ...manifest, dependencies: { undici: '^7.0.0' } }));
    const withDependency = scan(broken);
    expect(withDependency.result.passed).toBe(false);
    expect(withDependency.details).toMatch(/no-runtime-dependencies/);

    writeFileSync(path.join(broken, 'package.json'), JSON.stringify(manifest));
    const file = path.join(broken, 'dist/shared/http/send.js');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nexports.home = process.env.HOME;\n`);
    const withEnvironment = scan(broken);
    expect(withEnvironment.result.passed).toBe(false);
    expect(withEnvironment.details).toMatch(/no-restricted-globals/);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
}, 120_000);
