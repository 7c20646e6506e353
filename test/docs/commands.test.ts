import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { buildPackage } from '../support/package-build';
import { docFiles, ROOT } from '../../scripts/docs-tables';
import { main } from '../../cli/main';
import type { Flag } from '../../cli/flags';
import { FLAGS as WATCH_FLAGS } from '../../cli/watch';
import { FLAGS as PUBLISH_FLAGS } from '../../cli/publish';
import { ACTIONS as PEOPLE_ACTIONS, FLAGS as PEOPLE_FLAGS } from '../../cli/people';
import { ACTIONS as HISTORY_ACTIONS, FLAGS as HISTORY_FLAGS } from '../../cli/history';
import { roomsCommand } from '../../cli/rooms';
import { collectionsCommand, compareCommand, detectCommand } from '../../cli/vision-commands';

const COMMANDS: Record<string, readonly Flag[]> = {
  watch: WATCH_FLAGS,
  publish: PUBLISH_FLAGS,
  people: PEOPLE_FLAGS,
  history: HISTORY_FLAGS,
  detect: detectCommand.flags,
  compare: compareCommand.flags,
  collections: collectionsCommand.flags,
  rooms: roomsCommand.flags,
};
/** The actions of the commands that take one (the word after the command). */
const ACTIONS: Record<string, Readonly<Record<string, string>>> = { people: PEOPLE_ACTIONS, history: HISTORY_ACTIONS, collections: collectionsCommand.actions, rooms: roomsCommand.actions };
const pages = docFiles().map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));

/** A command line a page shows: where, and the words after `vision-streaming`. */
interface Shown {
  where: string;
  words: string[];
}

/** Every `vision-streaming ...` command line of a page: in code blocks (continued lines joined) and in inline code. */
function commandLines(file: string, text: string): Shown[] {
  const out: Shown[] = [];
  const take = (line: string, where: string): void => {
    const m = /(?:^|[\s/"'=(])vision-streaming(?:\.js)?\s+(.*)$/.exec(line);
    if (!m) return;
    // A shell comment, the next command of a chain, or the end of a $( ) ends the line.
    const own = m[1].replace(/\s#.*$/, '').split(/\s(?:&&|\|\||;|\|)\s/)[0].split(')')[0];
    const words = (own.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
    if (words.length > 0) out.push({ where, words });
  };
  const fences = /```[a-z]*\n([\s\S]*?)```/g;
  for (const block of text.matchAll(fences)) {
    const line0 = text.slice(0, block.index).split('\n').length;
    for (const line of block[1].replace(/\\\n\s*/g, ' ').split('\n')) take(line, `${file} (code block at line ${line0})`);
  }
  const prose = text.replace(fences, '');
  for (const span of prose.matchAll(/`([^`\n]*vision-streaming(?:\.js)? [^`\n]*)`/g)) take(span[1], `${file}: \`${span[1]}\``);
  return out;
}

/** A word in capitals stands for any value (ACTION, COMMAND). */
const PLACEHOLDER = /^[A-Z]+$/;

/** What is wrong with a shown command line: an unknown command, action or flag (empty when nothing is). */
function problemsOf(shown: Shown): string[] {
  const [command, ...rest] = shown.words;
  if (command === '--help' || command === '-h') return [];
  if (command === 'help') return rest[0] === undefined || rest[0] in COMMANDS || PLACEHOLDER.test(rest[0]) ? [] : [`${shown.where}: help names no command "${rest[0]}"`];
  const flags = COMMANDS[command];
  if (!flags) return [`${shown.where}: "${command}" is not a command of vision-streaming (${Object.keys(COMMANDS).join(', ')})`];
  const problems: string[] = [];
  let args = rest;
  const actions = ACTIONS[command];
  if (actions && args[0] !== undefined && !args[0].startsWith('-')) {
    if (!(args[0] in actions) && !PLACEHOLDER.test(args[0])) problems.push(`${shown.where}: "${args[0]}" is not an action of ${command}`);
    args = args.slice(1);
  }
  for (const word of args.filter((w) => w.startsWith('--'))) {
    const name = word.slice(2).split('=')[0];
    if (!flags.some((f) => f.name === name)) problems.push(`${shown.where}: ${command} has no flag --${name}`);
  }
  return problems;
}

const shown = pages.flatMap((p) => commandLines(p.file, p.text));

describe('the command lines the docs show', () => {
  test('are found: each command appears, in code blocks and in prose', () => {
    const commands = new Set(shown.map((s) => s.words[0]));
    for (const command of Object.keys(COMMANDS)) expect(commands).toContain(command);
    expect(shown.length).toBeGreaterThan(20);
  });

  test('name only commands, actions and flags the command has', () => {
    expect(shown.flatMap(problemsOf)).toEqual([]);
  });

  test('a flag, action or command that does not exist is caught', () => {
    const planted = commandLines('x.md', [
      '```sh',
      'npx vision-streaming watch --room R \\',
      '  --no-such-flag 1   # a comment --not-a-flag',
      'vision-streaming people befriend --name A',
      'vision-streaming wach --room R',
      'export VS_ROOM=$(vision-streaming rooms create --id-onl)',
      'vision-streaming collections purge',
      '```',
      'and in prose `vision-streaming publish --sauce x`.',
    ].join('\n'));
    expect(planted.flatMap(problemsOf)).toEqual([
      'x.md (code block at line 1): watch has no flag --no-such-flag',
      'x.md (code block at line 1): "befriend" is not an action of people',
      `x.md (code block at line 1): "wach" is not a command of vision-streaming (${Object.keys(COMMANDS).join(', ')})`,
      'x.md (code block at line 1): rooms has no flag --id-onl',
      'x.md (code block at line 1): "purge" is not an action of collections',
      'x.md: `vision-streaming publish --sauce x`: publish has no flag --sauce',
    ]);
  });

  test.each(Object.keys(COMMANDS))('%s --help runs and lists every flag the docs use with it', async (command) => {
    const out: string[] = [];
    const io = { stdout: (line: string) => void out.push(line), stderr: (line: string) => void out.push(line), interrupted: new Promise<void>(() => undefined) };
    await expect(main([command, '--help'], {}, io)).resolves.toBe(0);
    const help = out.join('\n');
    const used = new Set(shown.filter((s) => s.words[0] === command).flatMap((s) => s.words.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0])));
    expect(used.size).toBeGreaterThan(0);
    for (const flag of used) expect(help).toContain(`${flag}`);
  });
});

describe('the docs point at what exists', () => {
  test('every npm script they name is in package.json', () => {
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const named = pages.flatMap((p) => [...p.text.matchAll(/npm run ([a-z0-9:-]+)/g)].map((m) => ({ file: p.file, script: m[1] })));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !(n.script in scripts)).map((n) => `${n.file}: npm run ${n.script}`)).toEqual([]);
  });

  test('every relative link reaches a file, and every #anchor a heading of it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const { file, text } of pages) {
      const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1];
        if (/^[a-z]+:/i.test(link)) continue;
        checked++;
        const [target, anchor] = link.split('#');
        const full = target === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), target);
        if (!existsSync(full)) {
          broken.push(`${file}: ${link} (no such file)`);
          continue;
        }
        if (anchor !== undefined && full.endsWith('.md') && !headingSlugs(readFileSync(full, 'utf8')).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  test('a link to a missing heading is caught', () => {
    expect(headingSlugs('# Watching a room\n```sh\n# not a heading\n```\n## The `--people` flag (files)\n')).toEqual(new Set(['watching-a-room', 'the---people-flag-files']));
  });
});

/** The first code block under a heading of a page. */
function blockUnder(file: string, heading: string): string {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${file} has no heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`no code block under "${heading}" in ${file}`);
  return block[1];
}

describe('the first run of docs/command-line.md', () => {
  let sandbox: RunningSandbox | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await sandbox?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('runs as written against the sandbox: a collection and a face made by the commands, a clip made by the repository, and the watch names the face it added', async () => {
    const block = blockUnder('docs/command-line.md', '## First run: against the local sandbox');
    const [first, ...rest] = block.split('\n');
    // The one line not run here: the build, which this run has made once for every test, or found made
    // after its sources last changed (the same tsc build).
    expect(first).toBe('npm run build');
    buildPackage();
    // The sandbox as `npm run sandbox` starts it (its public placeholder client), on a free port instead of 8787.
    sandbox = await startSandbox({ port: 0, eagerModel: true });
    expect(block).toContain('http://127.0.0.1:8787');
    const script = rest.join('\n').split('http://127.0.0.1:8787').join(sandbox.url);
    dir = await mkdtemp(path.join(os.tmpdir(), 'first-run-'));
    // A folder like a clone: the commands' paths are relative to it (and what they write stays here).
    for (const part of ['bin', 'scripts', 'node_modules']) await symlink(path.join(ROOT, part), path.join(dir, part));
    await writeFile(path.join(dir, 'first-run.sh'), script);
    // Its own process group, so that the watch and the publish in the background are stopped together, as Ctrl-C would.
    const shell = spawn('bash', ['-e', 'first-run.sh'], { cwd: dir, detached: true, env: { PATH: withoutProjectBin(process.env.PATH), HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Record<string, unknown>[] = [];
    let stderr = '';
    let pending = '';
    let matched!: () => void;
    const match = new Promise<void>((resolve) => (matched = resolve));
    shell.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        const json = JSON.parse(line) as Record<string, unknown>;
        lines.push(json);
        if (json.event === 'match') matched();
      }
    });
    shell.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => shell.once('exit', (code) => resolve(code)));
    const group = -shell.pid!;
    try {
      const outcome = await Promise.race([match.then(() => 'match' as const), exited.then(() => 'exited' as const), new Promise((r) => setTimeout(r, 150_000, 'timeout'))]);
      expect({ outcome, stderr: outcome === 'match' ? '' : stderr }).toEqual({ outcome: 'match', stderr: '' });
    } finally {
      try {
        process.kill(group, 'SIGTERM');
      } catch {
        // already gone
      }
      const until = Date.now() + 15_000;
      while (Date.now() < until && alive(group)) await new Promise((r) => setTimeout(r, 100));
      if (alive(group)) process.kill(group, 'SIGKILL');
    }
    const detected = lines.find((l) => 'faces' in l);
    expect(detected).toEqual({ faces: [expect.objectContaining({ direction: 'front' })] });
    const added = lines.find((l) => 'face_id' in l && 'collection_id' in l)!;
    expect(added.face_id).toEqual(expect.any(String));
    expect(lines.find((l) => l.event === 'match')).toMatchObject({ face_id: added.face_id });
    expect(lines.some((l) => l.state === 'live')).toBe(true);
    expect(existsSync(path.join(dir, 'first-run', 'door-camera.ivf'))).toBe(true);
  }, 240_000);
});

/** PATH without the project's node_modules/.bin (npm test puts it first): the first run's own PATH line must bring Node 24. */
function withoutProjectBin(pathList = ''): string {
  return pathList
    .split(path.delimiter)
    .filter((p) => !p.endsWith(path.join('node_modules', '.bin')))
    .join(path.delimiter);
}

function alive(group: number): boolean {
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}

/** The anchors GitHub makes of a page's headings (outside code blocks). */
function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  for (const m of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    slugs.add(
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return slugs;
}
