#!/usr/bin/env node
'use strict';
// The docs' tables of the watcher's options, the events' fields (and their names in n8n items) and
// the command line's flags, made from the code's own descriptions (shared/watch/option-table.ts,
// shared/watch/event-fields.ts, shared/watch/event-json.ts, cli/option-flags.ts and each command's
// FLAGS), so that they cannot drift from it. A table sits in
// a page between `<!-- generated:NAME -->` and `<!-- /generated -->`.
//   node scripts/docs-tables.js           rewrites every table in place (npm run docs)
//   node scripts/docs-tables.js --check   changes nothing; exit 1 naming each table that differs
// Run directly, it reads the TypeScript sources through the compiler's transpiler (no build needed);
// required by a test, the test runner loads them.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MARKER = /<!-- generated:([a-z0-9-]+) -->\n([\s\S]*?)<!-- \/generated -->/g;

/** The pages that may hold generated tables: README.md and every page of docs/. */
function docFiles(root = ROOT) {
  const dir = path.join(root, 'docs');
  const pages = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort().map((f) => path.join('docs', f)) : [];
  return ['README.md', ...pages];
}

/** The code's descriptions the tables are made from. */
function sources() {
  return {
    table: require('../shared/watch/option-table'),
    optionFlags: require('../cli/option-flags'),
    fields: require('../shared/watch/event-fields'),
    eventJson: require('../shared/watch/event-json'),
    watch: require('../cli/watch'),
    publish: require('../cli/publish'),
    people: require('../cli/people'),
    history: require('../cli/history'),
    visionCommands: require('../cli/vision-commands'),
    rooms: require('../cli/rooms'),
  };
}

/** A cell's text with the characters a Markdown table cannot hold escaped. */
function cell(text) {
  return String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A Markdown table of a header row and rows of cells. */
function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

const code = (s) => `\`${s}\``;

/** The values an option takes, in words. */
function valuesOf(spec, table) {
  switch (spec.kind) {
    case 'number':
    case 'integer':
      return `${spec.kind === 'integer' ? 'whole, ' : ''}${table.rangeText(spec)}${spec.unit ? ` ${spec.unit}` : ''}`;
    case 'boolean':
      return 'true, false';
    case 'choice':
    case 'list':
      return spec.choices ? spec.choices.map((c) => code(c.value)).join(', ') : 'a list';
    case 'labels':
      return 'id → name';
    default:
      return '';
  }
}

/** The table of the watcher's options. */
function watchOptions({ table, optionFlags }) {
  return markdownTable(
    ['option', 'default', 'values', 'command line', 'meaning'],
    table.WATCH_OPTIONS.map((spec) => {
      const shown = table.defaultText(spec);
      const flag = optionFlags.cliFlag(spec.name);
      return [code(spec.name), shown === '' ? '–' : code(shown), valuesOf(spec, table), flag ? code(`--${flag.flag}${flag.value ? ` ${flag.value}` : ''}`) : '–', spec.help];
    }),
  );
}

/** The table of one documented object's fields. */
function fieldTable(fields, list) {
  return markdownTable(['field', 'meaning'], list(fields).map((f) => [code(`${f.name}${f.optional ? '?' : ''}`), f.doc]));
}

/**
 * The n8n items' names for the events' fields, as the mapping's rule and renames give them: every
 * field the rule renames or leaves out of it (a field not listed keeps its name), pictures as binary properties.
 */
function n8nItemFields({ fields, eventJson }) {
  const { EVENT_FIELDS, QUALITY_FIELDS, PRESENT_FIELDS, COUNT_FIELDS, fieldList } = fields;
  const { HOST_EVENTS, camelCase, itemFieldNames } = eventJson;
  // The documented objects inside events, and how a path into each is written.
  const nested = { quality: ['quality.', QUALITY_FIELDS], present: ['present[].', PRESENT_FIELDS], counts: ['counts.', COUNT_FIELDS] };
  const rows = new Map();
  const add = (core, item, by, event) => {
    const row = rows.get(core) ?? { item, by, events: [] };
    row.events.push(event);
    rows.set(core, row);
  };
  const named = (prefix, field, event) => {
    const names = itemFieldNames(field);
    const by = names.length > 1 ? 'flattened' : names[0] === camelCase(field) ? 'camelCase' : 'kept';
    add(prefix + field, names.map((n) => code(prefix + n)).join(', '), by, event);
  };
  for (const event of HOST_EVENTS) {
    for (const f of fieldList(EVENT_FIELDS[event])) {
      if (f.binary) add(f.name, code(camelCase(f.name)), 'binary', event);
      else named('', f.name, event);
      const inner = nested[f.name];
      if (inner) for (const g of fieldList(inner[1])) named(inner[0], g.name, event);
    }
  }
  const on = (events) => (events.length === HOST_EVENTS.length ? 'all' : events.join(', '));
  const changed = [...rows].filter(([core, r]) => r.item !== code(core) || r.by !== 'camelCase');
  return markdownTable(['event field', 'n8n item', 'by', 'on'], changed.map(([core, r]) => [code(core), r.item, r.by, on(r.events)]));
}

/** The table of one command's flags. */
function flagTable(flags) {
  return markdownTable(
    ['flag', 'variable', 'meaning'],
    flags.map((f) => [code(`--${f.name}${f.value ? ` ${f.value}` : ''}`), f.env ? code(f.env) : '–', f.help]),
  );
}

/** Every generated table, by name. */
function tables(src = sources()) {
  const out = new Map();
  out.set('watch-options', watchOptions(src));
  const { EVENT_FIELDS, QUALITY_FIELDS, PRESENT_FIELDS, COUNT_FIELDS, fieldList } = src.fields;
  for (const [name, fields] of Object.entries(EVENT_FIELDS)) out.set(`event-${name}`, fieldTable(fields, fieldList));
  out.set('event-quality', fieldTable(QUALITY_FIELDS, fieldList));
  out.set('event-present', fieldTable(PRESENT_FIELDS, fieldList));
  out.set('event-counts', fieldTable(COUNT_FIELDS, fieldList));
  out.set('event-pre-roll', fieldTable(src.fields.PRE_ROLL_FIELDS, fieldList));
  out.set('event-clip', fieldTable(src.fields.CLIP_FIELDS, fieldList));
  out.set('event-tracks', fieldTable(src.fields.TRACKS_FIELDS, fieldList));
  out.set('event-track-box', fieldTable(src.fields.TRACK_BOX_FIELDS, fieldList));
  out.set('event-history', fieldTable(src.fields.HISTORY_STATUS_FIELDS, fieldList));
  out.set('n8n-item-fields', n8nItemFields(src));
  out.set('cli-watch-flags', flagTable(src.watch.FLAGS));
  out.set('cli-publish-flags', flagTable(src.publish.FLAGS));
  out.set('cli-people-flags', flagTable(src.people.FLAGS));
  out.set('cli-people-actions', markdownTable(['action', 'does'], Object.entries(src.people.ACTIONS).map(([a, help]) => [code(a), help])));
  out.set('cli-history-flags', flagTable(src.history.FLAGS));
  out.set('cli-history-actions', markdownTable(['action', 'does'], Object.entries(src.history.ACTIONS).map(([a, help]) => [code(a), help])));
  // The commands of one service call each: their flags, after the credential flags every command takes.
  const { detectCommand, compareCommand, collectionsCommand } = src.visionCommands;
  const own = (command) => command.flags.filter((f) => !['auth-url', 'vision-url', 'sfu-url', 'client-id', 'help'].includes(f.name));
  out.set('cli-detect-flags', flagTable(own(detectCommand)));
  out.set('cli-compare-flags', flagTable(own(compareCommand)));
  out.set('cli-collections-flags', flagTable(own(collectionsCommand)));
  out.set('cli-collections-actions', markdownTable(['action', 'does'], Object.entries(collectionsCommand.actions).map(([a, help]) => [code(a), help])));
  out.set('cli-rooms-flags', flagTable(own(src.rooms.roomsCommand)));
  out.set('cli-rooms-actions', markdownTable(['action', 'does'], Object.entries(src.rooms.roomsCommand.actions).map(([a, help]) => [code(a), help])));
  return out;
}

/** The generated blocks of a page: each table's name and the text between its markers. */
function blocks(text) {
  return [...text.matchAll(MARKER)].map((m) => ({ name: m[1], body: m[2] }));
}

/** The page with every generated block replaced by its table; throws on a name the script does not make. */
function rewrite(text, made, file = 'page') {
  return text.replace(MARKER, (_whole, name) => {
    if (!made.has(name)) throw new Error(`${file}: no generated table is called "${name}" (known: ${[...made.keys()].join(', ')})`);
    return `<!-- generated:${name} -->\n${made.get(name)}\n<!-- /generated -->`;
  });
}

/** What differs between a page's generated blocks and the tables: one message per block, naming the table and the first line that differs. */
function differences(text, made, file = 'page') {
  const out = [];
  for (const { name, body } of blocks(text)) {
    const want = made.get(name);
    if (want === undefined) {
      out.push(`${file}: table "${name}" is not one the script makes (known: ${[...made.keys()].join(', ')})`);
      continue;
    }
    if (body === `${want}\n`) continue;
    const have = body.replace(/\n$/, '').split('\n');
    const should = want.split('\n');
    const i = should.findIndex((line, n) => have[n] !== line);
    const at = i === -1 ? should.length : i;
    out.push(
      `${file}: table "${name}" differs from the code at its line ${at + 1}:\n` +
        `  in the page:   ${have[at] === undefined ? '(nothing)' : have[at]}\n` +
        `  from the code: ${should[at] === undefined ? '(nothing)' : should[at]}\n` +
        `  (npm run docs rewrites it)`,
    );
  }
  return out;
}

/** Lets require() load the project's TypeScript by transpiling each file (type-only, no checks). */
function registerTypeScript() {
  const ts = require('typescript');
  require.extensions['.ts'] = (module, filename) => {
    const source = fs.readFileSync(filename, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2023, esModuleInterop: true, resolveJsonModule: true },
    });
    module._compile(outputText, filename);
  };
}

function main(argv) {
  const check = argv.includes('--check');
  registerTypeScript();
  const made = tables();
  const used = new Set();
  let problems = 0;
  for (const file of docFiles()) {
    const full = path.join(ROOT, file);
    const text = fs.readFileSync(full, 'utf8');
    for (const b of blocks(text)) used.add(b.name);
    if (check) {
      for (const d of differences(text, made, file)) {
        console.error(d);
        problems++;
      }
      continue;
    }
    const next = rewrite(text, made, file);
    if (next !== text) {
      fs.writeFileSync(full, next);
      console.log(`rewrote ${file}: ${blocks(text).filter((b) => b.body !== `${made.get(b.name)}\n`).map((b) => b.name).join(', ')}`);
    }
  }
  for (const name of made.keys()) {
    if (!used.has(name)) {
      console.error(`table "${name}" is in no page: place <!-- generated:${name} --> <!-- /generated --> where it belongs`);
      problems++;
    }
  }
  if (check && problems === 0) console.log(`docs tables: ${made.size} tables, all as the code says`);
  return problems === 0 ? 0 : 1;
}

module.exports = { tables, blocks, rewrite, differences, docFiles, markdownTable, ROOT };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
