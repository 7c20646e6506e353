import { copyFile, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * Lays out the package as `npm run build` would, in `dir`: shared/ transpiled to dist/shared (file by
 * file: the project compiles with isolatedModules, so this gives what tsc emits, minus the type check
 * the test suite runs anyway), bin/ copied, node_modules linked. Takes a second or two instead of a
 * whole-tree tsc run.
 */
export async function buildPackage(dir: string): Promise<{ bin: string }> {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.CommonJS, esModuleInterop: true, sourceMap: false };
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(path.join(ROOT, rel), { withFileTypes: true })) {
      const from = path.join(rel, entry.name);
      if (entry.isDirectory()) await walk(from);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const out = ts.transpileModule(await readFile(path.join(ROOT, from), 'utf8'), { compilerOptions: options, fileName: from });
        const target = path.join(dir, 'dist', from.replace(/\.ts$/, '.js'));
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, out.outputText);
      }
    }
  };
  await walk('shared');
  await walk('cli');
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  const bin = path.join(dir, 'bin', 'vision-streaming.js');
  await copyFile(path.join(ROOT, 'bin', 'vision-streaming.js'), bin);
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return { bin };
}
