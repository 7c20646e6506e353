// `npm run typecheck` and `npm run lint` side by side: each keeps one core busy, so together they take
// about as long as the slower one. Each one's output is printed whole when it ends, never interleaved.
// Exits non-zero when either fails.
const { Buffer } = require('node:buffer');
const { spawn } = require('node:child_process');

const SCRIPTS = ['typecheck', 'lint'];

/** Runs one npm script with its output captured; resolves with its exit code and output. */
function runScript(name) {
  // Under npm, npm_execpath is npm's own CLI script: run it with this Node, as npm would.
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, 'run', '--silent', name]] : ['npm', ['run', '--silent', name]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) => resolve({ name, code: 1, output: `${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() }));
  });
}

async function main() {
  const started = Date.now();
  const results = await Promise.all(SCRIPTS.map(runScript));
  for (const r of results) {
    process.stdout.write(`> ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`}\n${r.output}`);
  }
  process.stdout.write(`checks done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
}

main();
