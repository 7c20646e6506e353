import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../cli/main';
import { buildPackage } from './support/build';

// The binary's one entry: the list of commands, each command's help, and unknown names answered with
// the closest one, without loading what a command needs to run. Nothing here reaches a service.

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {}, { stdout: (l) => (stdout += `${l}\n`), stderr: (l) => (stderr += `${l}\n`), interrupted: new Promise(() => undefined) });
  return { code, stdout, stderr };
}

test('--help lists the commands with one line each; without a command the same list and exit 2', async () => {
  const help = await run('--help');
  expect(help.code).toBe(0);
  for (const command of ['watch', 'publish', 'people', 'detect', 'compare', 'collections', 'rooms']) expect(help.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
  expect(help.stdout).not.toContain('--threshold');
  const none = await run();
  expect(none.code).toBe(2);
  expect(none.stdout).toBe(help.stdout);
});

test('help COMMAND and COMMAND --help show the same flags', async () => {
  for (const [command, flag] of [
    ['watch', '--threshold'],
    ['publish', '--source'],
    ['people', '--image'],
    ['detect', '--kind'],
    ['compare', '--max-results'],
    ['collections', '--id-only'],
    ['rooms', '--direction'],
  ]) {
    const a = await run('help', command);
    const b = await run(command, '--help');
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stdout).toContain(flag);
    expect(a.stdout).toBe(b.stdout);
  }
});

test('every command takes the same credential flags', async () => {
  for (const command of ['watch', 'publish', 'people', 'detect', 'compare', 'collections', 'rooms']) {
    const { stdout } = await run('help', command);
    for (const flag of ['--auth-url', '--vision-url', '--sfu-url', '--client-id', 'VS_CLIENT_SECRET']) expect({ command, has: stdout.includes(flag) }).toEqual({ command, has: true });
  }
});

test('an unknown command or flag: exit 2, the list, and the closest name', async () => {
  const wrong = await run('wach');
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toMatch(/unknown command "wach" \(did you mean watch\?\); commands: watch, publish, people/);
  const flag = await run('watch', '--treshold', '0.8');
  expect(flag.code).toBe(2);
  expect(flag.stderr).toMatch(/unknown flag --treshold \(did you mean --threshold\?\)/);
  const helpOf = await run('help', 'nothing');
  expect(helpOf.code).toBe(2);
});

test('help and bad flags answer before any WebRTC, HTTP or image library is loaded', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-load-'));
  try {
    await buildPackage(dir);
    const cases = [['--help'], ['help', 'watch'], ['watch', '--help'], ['publish', '--help'], ['people', '--help'], ['watch', '--treshold', '1'], ['publish', '--room', 'r'], ['people', 'list'],
      ['detect', '--help'], ['compare', '--help'], ['collections', '--help'], ['rooms', 'ticket', '--help'], ['detect', 'x.jpg', '--knd', 'faces'], ['rooms', 'ticket', '--direction', 'sideways'], ['collections', 'delete']];
    // In a fresh Node: which of the heavy libraries the answers loaded, then (the control) what the
    // connection module loads, so that the check itself is seen to find them.
    const script = `
      const loaded = () => [...new Set(Object.keys(require.cache).map((f) => /node_modules[\\/](werift|undici|ws|sharp)[\\/]/.exec(f)?.[1]).filter(Boolean))].sort();
      const { main } = require(${JSON.stringify(path.join(dir, 'dist', 'cli', 'main.js'))});
      const io = { stdout: () => undefined, stderr: () => undefined, interrupted: new Promise(() => undefined) };
      (async () => {
        const codes = [];
        for (const argv of ${JSON.stringify(cases)}) codes.push(await main(argv, {}, io));
        const answered = loaded();
        require(${JSON.stringify(path.join(dir, 'dist', 'shared', 'connection', 'index.js'))});
        process.stdout.write(JSON.stringify({ codes, answered, control: loaded() }));
      })();`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { codes: number[]; answered: string[]; control: string[] };
    expect(out.codes).toEqual([0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 2, 2, 2]);
    expect(out.answered).toEqual([]);
    expect(out.control).toContain('undici');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
