import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cleanUpEngine, loadPackage, PACKAGE_DIR, type LoadedPackage } from './support/engine';

// The package as n8n installs it: the "n8n" section of package.json, what n8n's loader finds in dist/.

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
  name: string;
  keywords: string[];
  peerDependencies: Record<string, string>;
  files: string[];
  n8n: { n8nNodesApiVersion: number; nodes: string[]; credentials: string[] };
};
let pkg: LoadedPackage;

beforeAll(async () => {
  pkg = await loadPackage();
}, 180_000);

afterAll(() => cleanUpEngine());

function sources(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(PACKAGE_DIR, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) out.push(relative(PACKAGE_DIR, join(entry.parentPath, entry.name)));
  }
  return out.sort();
}

test('every node and credential source is listed in the n8n section, as its dist/ path', () => {
  expect(manifest.n8n.n8nNodesApiVersion).toBe(1);
  expect(manifest.keywords).toContain('n8n-community-node-package');
  expect(manifest.name).toMatch(/^n8n-nodes-/);
  expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
  const toDist = (p: string) => `dist/${p.replace(/\.ts$/, '.js')}`;
  expect([...manifest.n8n.nodes].sort()).toEqual(sources('nodes', '.node.ts').map(toDist));
  expect([...manifest.n8n.credentials].sort()).toEqual(sources('credentials', '.credentials.ts').map(toDist));
  for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
    expect(manifest.files.some((f) => file.startsWith(`${f}/`))).toBe(true);
  }
});

test("n8n's loader finds every node, versioned, with a codex and light and dark icons", () => {
  expect(pkg.nodeNames.length).toBe(manifest.n8n.nodes.length);
  for (const file of manifest.n8n.nodes) {
    const base = join(PACKAGE_DIR, file.replace(/\.js$/, ''));
    const codex = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { node: string; categories: string[]; alias: string[]; resources: { primaryDocumentation: { url: string }[] } };
    expect(pkg.nodeNames).toContain(codex.node);
    expect(codex.categories.length).toBeGreaterThan(0);
    expect(codex.alias.length).toBeGreaterThan(0);
    expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
    const type = pkg.nodeTypes.getByNameAndVersion(codex.node);
    const { description } = type;
    // Version 2 picks rooms and collections from lists; version 1 workflows keep their plain IDs.
    expect(description.defaultVersion).toBe(2);
    expect(description.version).toEqual([1, 2]);
    // The loader turns `file:` icons into URLs under icons/<package>/ that n8n serves from the package.
    const icon = description.iconUrl as { light: string; dark: string };
    for (const variant of [icon.light, icon.dark]) {
      expect(variant.startsWith(`icons/${pkg.packageName}/`)).toBe(true);
      expect(existsSync(join(PACKAGE_DIR, variant.slice(`icons/${pkg.packageName}/`.length)))).toBe(true);
    }
    expect(icon.light).not.toBe(icon.dark);
  }
  const credential = pkg.credentialTypes.get('visionStreamingApi');
  expect(credential?.test).toBeDefined();
});
