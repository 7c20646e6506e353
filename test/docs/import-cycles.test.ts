import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const PRODUCT = ['shared', 'cli', 'node-red', 'nodes', 'credentials'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The product's own files a file imports (type imports and re-exports included). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name))
    .map((base) => [`${base}.ts`, path.join(base, 'index.ts')].find((f) => existsSync(f)))
    .filter((f): f is string => f !== undefined);
}

/** Every cycle found by a depth-first walk, each as the files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)).map((f) => path.relative(ROOT, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

test("no import cycle in the product's TypeScript (shared, cli, node-red, nodes, credentials)", () => {
  const graph = new Map<string, string[]>();
  for (const dir of PRODUCT) for (const file of sources(path.join(ROOT, dir))) graph.set(file, importsOf(file));
  expect(graph.size).toBeGreaterThan(150);
  expect(cycles(graph)).toEqual([]);
});

test('the check finds a cycle when there is one', () => {
  const graph = new Map([
    ['/a.ts', ['/b.ts']],
    ['/b.ts', ['/c.ts']],
    ['/c.ts', ['/a.ts']],
  ]);
  expect(cycles(graph)).toHaveLength(1);
});
