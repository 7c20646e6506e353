import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { docFiles, ROOT } from '../../scripts/docs-tables';
import { main } from '../../cli/main';
import type { Flag } from '../../cli/flags';
import { FLAGS as WATCH_FLAGS } from '../../cli/watch';
import { FLAGS as PUBLISH_FLAGS } from '../../cli/publish';
import { ACTIONS as PEOPLE_ACTIONS, FLAGS as PEOPLE_FLAGS } from '../../cli/people';

const COMMANDS: Record<string, readonly Flag[]> = { watch: WATCH_FLAGS, publish: PUBLISH_FLAGS, people: PEOPLE_FLAGS };
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
    const m = /(?:^|[\s/"'=])vision-streaming(?:\.js)?\s+(.*)$/.exec(line);
    if (!m) return;
    // A shell comment, or the next command of a chain, ends the line.
    const own = m[1].replace(/\s#.*$/, '').split(/\s(?:&&|\|\||;|\|)\s/)[0];
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
  if (command === 'people' && args[0] !== undefined && !args[0].startsWith('-')) {
    if (!(args[0] in PEOPLE_ACTIONS) && !PLACEHOLDER.test(args[0])) problems.push(`${shown.where}: "${args[0]}" is not an action of people`);
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
      '```',
      'and in prose `vision-streaming publish --sauce x`.',
    ].join('\n'));
    expect(planted.flatMap(problemsOf)).toEqual([
      'x.md (code block at line 1): watch has no flag --no-such-flag',
      'x.md (code block at line 1): "befriend" is not an action of people',
      'x.md (code block at line 1): "wach" is not a command of vision-streaming (watch, publish, people)',
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
