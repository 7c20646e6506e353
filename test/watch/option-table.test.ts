import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INodeProperties } from 'n8n-workflow';
import { helpText } from '../../cli/watch';
import { FaceMatchTrigger } from '../../nodes/FaceMatchTrigger/FaceMatchTrigger.node';
import { PARAMETER_LABELS } from '../../nodes/FaceMatchTrigger/description';
import { watchSettings, type WatchDef } from '../../node-red/lib/watch-settings';
import { resolveWatchOptions, type ResolvedWatchOptions } from '../../shared/watch/options';
import { WATCH_OPTIONS, type OptionSpec } from '../../shared/watch/option-table';

// The watcher's options are described once, in shared/watch/option-table.ts. The n8n trigger and the
// CLI are built from the table; the Node-RED editor is HTML, held to the table here. A host that
// lacks an option, or shows another default, fails this file.

const ROOT = path.join(__dirname, '..', '..');
const table = WATCH_OPTIONS as readonly OptionSpec[];
const userFacing = table.filter((o) => o.hosts.n8n || o.hosts.nodeRed || o.hosts.cli);

test('every option of WatchOptions is in the table, but the clients, the room, the collection and the plumbing', () => {
  const source = readFileSync(path.join(ROOT, 'shared/watch/options.ts'), 'utf8');
  const block = source.slice(source.indexOf('export interface WatchOptions {'), source.indexOf('/** Options with defaults applied and checked. */'));
  const names = [...block.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
  const notInTable = ['vision', 'streaming', 'roomId', 'collectionId', 'loopbackOnly', 'ffmpegPath', 'session', 'visitorStore'];
  expect(names.filter((n) => !notInTable.includes(n)).sort()).toEqual(table.map((o) => o.name).sort());
});

test('the core applies the table defaults and names the option and its range on a bad value', () => {
  const resolved = resolveWatchOptions({ vision: {} as never, streaming: { sfuUrl: 'https://sfu.example' } as never, roomId: 'r', collectionId: 'c' });
  const core: Record<string, unknown> = {
    ...resolved,
    cooldownSeconds: resolved.cooldownMs / 1000,
    recheckSeconds: resolved.recheckMs / 1000,
    streamWaitSeconds: resolved.streamWaitMs / 1000,
    quotaPauseSeconds: resolved.quotaPauseMs / 1000,
    leftAfterSeconds: resolved.leftAfterMs / 1000,
    visitorRetentionDays: resolved.visitorRetentionMs / 86_400_000,
    events: [...resolved.events],
    streams: resolved.streams,
    ignore: resolved.ignore.size > 0 ? [...resolved.ignore] : undefined,
    labels: undefined,
  } satisfies Partial<Record<keyof ResolvedWatchOptions | string, unknown>>;
  for (const o of table) expect([o.name, core[o.name]]).toEqual([o.name, o.default]);
  for (const o of table.filter((x) => x.kind === 'number' && x.max !== undefined)) {
    expect(() => resolveWatchOptions({ vision: {} as never, streaming: { sfuUrl: 'https://sfu.example' } as never, roomId: 'r', collectionId: 'c', [o.name]: o.max! + 1 })).toThrow(
      expect.objectContaining({ field: o.name, limit: `${o.min}..${o.max}` }),
    );
  }
});

test('every host offers the same options: n8n, Node-RED and the CLI each have all of them or none', () => {
  // Events are chosen by each host in its own way (n8n's Events parameter, Node-RED's outputs).
  for (const o of userFacing.filter((x) => x.name !== 'events')) {
    expect([o.name, Boolean(o.hosts.n8n), Boolean(o.hosts.nodeRed), Boolean(o.hosts.cli)]).toEqual([o.name, true, true, true]);
  }
});

test('the n8n trigger has a parameter for each option, with the table default, range and choices, and an error label', () => {
  const props = new FaceMatchTrigger().description.properties;
  const options = props.find((p) => p.name === 'options')!.options as INodeProperties[];
  for (const o of table.filter((x) => x.hosts.n8n)) {
    const p = (o.hosts.n8n === 'main' ? props : options).find((x) => x.name === o.name);
    expect([o.name, p?.displayName]).toEqual([o.name, o.label]);
    if (o.kind === 'number' || o.kind === 'integer') {
      expect([o.name, p!.default, p!.typeOptions?.minValue, p!.typeOptions?.maxValue]).toEqual([o.name, o.default, o.min, o.max]);
    } else if (o.kind === 'boolean' || o.kind === 'choice') {
      expect([o.name, p!.default]).toEqual([o.name, o.default]);
    }
    if (o.kind === 'choice') expect((p!.options as { value: string }[]).map((c) => c.value)).toEqual(o.choices!.map((c) => c.value));
    expect(PARAMETER_LABELS[o.name]).toContain(o.label);
  }
});

test('the Node-RED editor has a field, the table default and a line of help for each option, and the node reads each', () => {
  const html = readFileSync(path.join(ROOT, 'node-red/watch.html'), 'utf8');
  const help = readFileSync(path.join(ROOT, 'node-red/locales/en-US/watch.html'), 'utf8');
  const defaults: Record<string, unknown> = { service: 'svc', roomId: 'r', collectionId: 'c' };
  for (const o of table.filter((x) => x.hosts.nodeRed)) {
    const entry = new RegExp(`^\\s+${o.name}: \\{ value: ('([^']*)'|true|false)`, 'm').exec(html);
    expect([o.name, entry !== null]).toEqual([o.name, true]);
    const value = entry![2] ?? entry![1];
    const expected = o.default === undefined ? '' : String(o.default);
    expect([o.name, value]).toEqual([o.name, expected]);
    expect([o.name, html.includes(`id="node-input-${o.name}"`)]).toEqual([o.name, true]);
    defaults[o.name] = o.kind === 'boolean' ? value === 'true' : value;
    if (o.kind === 'choice') for (const c of o.choices!) expect(html).toContain(`<option value="${c.value}">`);
  }
  // One <dt> of help per setting in the Settings part of the sidebar help.
  const settings = help.slice(help.indexOf('<h3>Settings</h3>'), help.indexOf('<h3>Details</h3>'));
  expect(settings.match(/<dt>/g)).toHaveLength(table.filter((x) => x.hosts.nodeRed).length);
  // The editor's defaults, read by the node, give the core's defaults.
  const read = watchSettings(defaults as unknown as WatchDef, {} as never) as Record<string, unknown>;
  for (const o of table.filter((x) => x.hosts.nodeRed && x.default !== undefined)) expect([o.name, read[o.name]]).toEqual([o.name, o.default]);
});

test('the CLI has a flag and a VS_ variable for each option, and --help gives its default', () => {
  const text = helpText();
  for (const o of table.filter((x) => x.hosts.cli)) {
    const { flag } = o.hosts.cli!;
    const line = text.split('\n').find((l) => l.trimStart().startsWith(`--${flag} `) || l.trim() === `--${flag}`);
    expect([o.name, line !== undefined]).toEqual([o.name, true]);
    expect(line).toContain(`[VS_${flag.toUpperCase().replace(/-/g, '_')}]`);
    if (o.default !== undefined && o.kind !== 'boolean') expect(line).toContain(`default ${Array.isArray(o.default) ? o.default.join(',') : o.default}`);
  }
});
