import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { blocks, differences, docFiles, rewrite, ROOT, tables } from '../../scripts/docs-tables';
import { CLIP_FIELDS, TRACKS_FIELDS, TRACK_BOX_FIELDS, COUNT_FIELDS, EVENT_FIELDS, PRE_ROLL_FIELDS, PRESENT_FIELDS, QUALITY_FIELDS, fieldList, type EventField } from '../../shared/watch/event-fields';

const made = tables();
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

describe('the generated tables of the docs', () => {
  test('every generated table in the docs is the one the code makes', () => {
    const problems = docFiles().flatMap((file) => differences(read(file), made, file));
    expect(problems).toEqual([]);
  });

  test('every table the code makes is placed in a page', () => {
    const placed = new Set(docFiles().flatMap((file) => blocks(read(file)).map((b) => b.name)));
    expect([...made.keys()].filter((name) => !placed.has(name))).toEqual([]);
  });

  test('a table that differs from the code is named, with the line that differs, and npm run docs puts it right', () => {
    const page = read('docs/watching.md');
    const row = made.get('watch-options')!.split('\n').find((line) => line.startsWith('| `threshold` |'))!;
    expect(page).toContain(row);
    const drifted = page.replace(row, row.replace('`0.7`', '`0.8`'));
    const found = differences(drifted, made, 'docs/watching.md');
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('docs/watching.md: table "watch-options"');
    expect(found[0]).toContain('in the page:   | `threshold` | `0.8`');
    expect(found[0]).toContain('from the code: | `threshold` | `0.7`');
    expect(rewrite(drifted, made)).toBe(page);
  });

  test('a row missing from a page and a table the script does not make are both named', () => {
    const page = read('docs/command-line.md');
    const lastFlag = made.get('cli-watch-flags')!.split('\n').at(-1)!;
    const shortened = page.replace(`${lastFlag}\n`, '');
    expect(differences(shortened, made, 'docs/command-line.md')).toEqual([expect.stringMatching(/table "cli-watch-flags" differs .*\n {2}in the page: {3}\(nothing\)/)]);
    const unknown = '<!-- generated:no-such-table -->\n| a |\n<!-- /generated -->\n';
    expect(differences(unknown, made, 'x.md')).toEqual([expect.stringContaining('table "no-such-table" is not one the script makes')]);
    expect(() => rewrite(unknown, made, 'x.md')).toThrow('no generated table is called "no-such-table"');
  });

  test('the option table names every option of the code, with its default and flag', () => {
    const table = made.get('watch-options')!;
    expect(table).toContain('| `cooldownSeconds` | `60` | 0..86400 s | `--cooldown SECONDS` |');
    expect(table).toContain('| `jpegQuality` | `85` | whole, 1..100 | – |');
    expect(table).toContain('`--cooldown-scope stream\\|room`');
  });

  test('npm run docs, run by the project\'s node, finds every table as the code says', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/docs-tables.js'), '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`docs tables: ${made.size} tables, all as the code says`);
  });
});

/** The properties of an exported interface of shared/watch/events.ts as the compiler reads it: name and whether optional. */
function typeKeys(): Map<string, Map<string, boolean>> {
  const file = path.join(ROOT, 'shared/watch/events.ts');
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: [], skipLibCheck: true });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const out = new Map<string, Map<string, boolean>>();
  for (let symbol of checker.getExportsOfModule(module)) {
    const name = symbol.getName();
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    if (!(symbol.flags & ts.SymbolFlags.Interface)) continue;
    const props = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol));
    out.set(name, new Map(props.map((p) => [p.getName(), (p.flags & ts.SymbolFlags.Optional) !== 0])));
  }
  return out;
}

describe('the events\' described fields', () => {
  const types = typeKeys();
  const described: [string, string, Readonly<Record<string, EventField>>][] = [
    ['match', 'MatchEvent', EVENT_FIELDS.match],
    ['unknown', 'UnknownEvent', EVENT_FIELDS.unknown],
    ['arrived', 'ArrivedEvent', EVENT_FIELDS.arrived],
    ['left', 'LeftEvent', EVENT_FIELDS.left],
    ['status', 'StatusEvent', EVENT_FIELDS.status],
    ['error', 'ErrorEvent', EVENT_FIELDS.error],
    ['quality', 'FaceQuality', QUALITY_FIELDS],
    ['present', 'PresentEntry', PRESENT_FIELDS],
    ['counts', 'StatusCounts', COUNT_FIELDS],
    ['pre-roll', 'PreRollEntry', PRE_ROLL_FIELDS],
    ['clip', 'ClipEvent', CLIP_FIELDS],
    ['tracks', 'TracksEvent', TRACKS_FIELDS],
    ['track', 'TrackBox', TRACK_BOX_FIELDS],
  ];

  test('every event of the watcher is described', () => {
    expect(Object.keys(EVENT_FIELDS).sort()).toEqual(['arrived', 'error', 'left', 'match', 'status', 'unknown']);
  });

  test.each(described)('%s lists exactly the keys of %s, optional where the type is', (_name, typeName, fields) => {
    const keys = types.get(typeName);
    expect(keys).toBeDefined();
    const listed = fieldList(fields);
    const fromType = [...keys!].map(([key, optional]) => `${key}${optional ? '?' : ''}`).sort();
    expect(listed.map((f) => `${f.name}${f.optional ? '?' : ''}`).sort()).toEqual(fromType);
    for (const f of listed) expect(f.doc.length).toBeGreaterThan(3);
  });
});
