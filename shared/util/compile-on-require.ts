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
    const fs = require('node:fs') as typeof import('node:fs');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { join, dirname } = require('node:path') as typeof import('node:path');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createHash, randomBytes } = require('node:crypto') as typeof import('node:crypto');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { tmpdir } = require('node:os') as typeof import('node:os');
    type Loadable = { _compile(code: string, file: string): void };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extensions = (require('node:module') as { _extensions: Record<string, (m: Loadable, file: string) => void> })._extensions;
    // Each worker would otherwise load the compiler (over half a second of CPU) and compile the same
    // modules again: the output is kept by its source and the compiler's version, and the compiler
    // is loaded only when something is not kept yet.
    const compilerVersion = (JSON.parse(fs.readFileSync(join(dirname(require.resolve('typescript')), '..', 'package.json'), 'utf8')) as { version: string }).version;
    // Code read back from here is run, so the folder is used only when this user owns it and no one
    // else may write it (trust.ts's rule, spelled out: this file cannot import it): another user could
    // have made it first in the shared temporary folder.
    const kept = ((folder: string): string | undefined => {
      try {
        fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
        const found = fs.lstatSync(folder);
        const uid = process.getuid?.();
        return found.isDirectory() && (uid === undefined || (found.uid === uid && (found.mode & 0o022) === 0)) ? folder : undefined;
      } catch {
        return undefined;
      }
    })(join(tmpdir(), `vision-streaming-compiled-${process.getuid?.() ?? 'user'}`));
    // The compiler's own spelling of CommonJS and ES2022, so that it need not be loaded to name them.
    const options = { module: 'commonjs', target: 'es2022', esModuleInterop: true } as unknown as import('typescript').CompilerOptions;
    let ts: typeof import('typescript') | undefined;
    extensions['.ts'] = (loaded, file) => {
      const source = fs.readFileSync(file, 'utf8');
      const keptFile = kept && join(kept, `${createHash('sha256').update(`${compilerVersion}\n${JSON.stringify(options)}\n${file}\n`).update(source).digest('hex').slice(0, 32)}.js`);
      let code: string | undefined;
      try {
        if (keptFile) code = fs.readFileSync(keptFile, 'utf8');
      } catch {
        // Not kept yet: compiled below.
      }
      if (code === undefined) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        ts ??= require('typescript') as typeof import('typescript');
        code = ts.transpileModule(source, { fileName: file, compilerOptions: options }).outputText;
        // Written aside and renamed, so that a worker starting meanwhile never reads half a file; a
        // file that cannot be written only means compiling again next time.
        if (keptFile) {
          try {
            const aside = `${keptFile}.${randomBytes(6).toString('hex')}`;
            fs.writeFileSync(aside, code, { mode: 0o600 });
            fs.renameSync(aside, keptFile);
          } catch {
            // Not kept.
          }
        }
      }
      loaded._compile(code, file);
    };
  };
  module.exports = { compileTypeScriptOnRequire };
}
