/*
 * For the package's worker threads run from sources (tests): Node runs a worker's .ts entry with its
 * types stripped, but cannot require the package's other .ts modules, which use import statements.
 * This file is CommonJS without import statements for the same reason, and a block so that its
 * names do not meet those of the workers (script files share one scope for the type checker).
 */
{
  /** Lets `require` load the package's .ts modules, compiled to CommonJS on the fly. Sources only. */
  const compileTypeScriptOnRequire = (): void => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ts = require('typescript') as typeof import('typescript');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs') as typeof import('node:fs');
    type Loadable = { _compile(code: string, file: string): void };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extensions = (require('node:module') as { _extensions: Record<string, (m: Loadable, file: string) => void> })._extensions;
    extensions['.ts'] = (loaded, file) => {
      const source = fs.readFileSync(file, 'utf8');
      const out = ts.transpileModule(source, { fileName: file, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
      loaded._compile(out.outputText, file);
    };
  };
  module.exports = { compileTypeScriptOnRequire };
}
