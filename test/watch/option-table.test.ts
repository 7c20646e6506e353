import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import type { INodeProperties } from 'n8n-workflow';
import { CLI_FLAGS } from '../../cli/option-flags';
import { helpText } from '../../cli/watch';
import { FaceMatchTrigger } from '../../nodes/FaceMatchTrigger/FaceMatchTrigger.node';
import { PARAMETER_LABELS } from '../../nodes/FaceMatchTrigger/description';
import { N8N_PLACEMENT } from '../../nodes/FaceMatchTrigger/placement';
import { NODE_RED_OPTIONS, watchSettings, type WatchDef } from '../../node-red/lib/watch-settings';
import type { WatchEventName } from '../../shared/watch/events';
import { resolveWatchOptions, type ResolvedWatchOptions, type WatchOptions } from '../../shared/watch/options';
import { WATCH_OPTIONS, type OptionSpec, type OptionValueOf, type WatchOptionName } from '../../shared/watch/option-table';

// The watcher's options are described once, in shared/watch/option-table.ts: their types are derived
// from it, the core checks values against it, and each host places them its own way (the n8n
// trigger's parameters, the CLI's flags, the Node-RED editor). The n8n trigger and the CLI are built
// from the table; the Node-RED editor is HTML, whose definition is run here and held to the table.
// A host that lacks an option, or shows another default or range, fails this file.

const ROOT = path.join(__dirname, '..', '..');
const table = WATCH_OPTIONS as readonly OptionSpec[];
const spec = (name: string): OptionSpec => table.find((o) => o.name === name)!;
const base = { vision: {} as never, streaming: { sfuUrl: 'https://sfu.example' } as never, roomId: 'r', collectionId: 'c' };

/** True only when A and B are the same type (checked by the compiler). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameType = <A, B>(same: Same<A, B>): Same<A, B> => same;

test('the option types are the table\'s: WatchOptions holds each option with the type its kind gives, and the plumbing besides', () => {
  type Plumbing = 'vision' | 'streaming' | 'roomId' | 'collectionId' | 'loopbackOnly' | 'ffmpegPath' | 'session' | 'visitorStore' | 'people' | 'clips' | 'history';
  // The compiler checks these lines: a name or a type that drifts from the table does not build.
  expect(sameType<Exclude<keyof WatchOptions, Plumbing>, WatchOptionName>(true)).toBe(true);
  expect(sameType<OptionValueOf<'fps'>, number>(true)).toBe(true);
  expect(sameType<OptionValueOf<'drawBoxes'>, boolean>(true)).toBe(true);
  expect(sameType<OptionValueOf<'codec'>, 'VP8' | 'VP9' | 'H264'>(true)).toBe(true);
  expect(sameType<OptionValueOf<'events'>, WatchEventName[]>(true)).toBe(true);
  expect(sameType<OptionValueOf<'streams'>, string[]>(true)).toBe(true);
  expect(sameType<OptionValueOf<'labels'>, Record<string, string>>(true)).toBe(true);
  expect(sameType<ResolvedWatchOptions['cooldownMs'], number>(true)).toBe(true);
  expect(sameType<ResolvedWatchOptions['events'], ReadonlySet<WatchEventName>>(true)).toBe(true);
  expect(sameType<ResolvedWatchOptions['streams'], ReadonlySet<string> | undefined>(true)).toBe(true);
  expect(sameType<ResolvedWatchOptions['labels'], ReadonlyMap<string, string>>(true)).toBe(true);
  // At run time: the events the table offers are the events the watcher emits.
  expect(spec('events').choices!.map((c) => c.value)).toEqual(['match', 'unknown', 'status', 'error', 'arrived', 'left'] satisfies WatchEventName[]);
});

test('the core applies the table defaults and names the option and its range on a bad value', () => {
  const resolved: Record<string, unknown> = { ...resolveWatchOptions(base) };
  for (const o of table) {
    const value = resolved[o.inMs?.name ?? o.name];
    const given = value instanceof Set ? [...value] : value instanceof Map ? undefined : typeof value === 'number' && o.inMs ? value / o.inMs.per : value;
    expect([o.name, given]).toEqual([o.name, o.default]);
  }
  for (const o of table.filter((x) => x.kind === 'number' && x.max !== undefined)) {
    expect(() => resolveWatchOptions({ ...base, [o.name]: o.max! + 1 })).toThrow(expect.objectContaining({ field: o.name, limit: `${o.min}..${o.max}` }));
  }
  for (const o of table.filter((x) => x.kind === 'choice')) {
    expect(() => resolveWatchOptions({ ...base, [o.name]: 'nope' })).toThrow(expect.objectContaining({ field: o.name }));
  }
  // Times are kept in ms, integers whole.
  expect(resolveWatchOptions({ ...base, cooldownSeconds: 1.5, visitorRetentionDays: 2, maxVisitors: 7.4 })).toMatchObject({ cooldownMs: 1500, visitorRetentionMs: 2 * 86_400_000, maxVisitors: 7 });
});

test('every host offers the same options: n8n, Node-RED and the CLI each have all of them or none', () => {
  const n8n = Object.keys(N8N_PLACEMENT).sort();
  // A tracks event twice a second per stream is for live views (Node-RED's, the command line's), not for starting n8n workflows.
  const liveOnly = ['stillEverySeconds', 'tracks'];
  const nodeRed = [...NODE_RED_OPTIONS].filter((n) => !liveOnly.includes(n)).sort();
  // Events are chosen by each host in its own way (n8n's Events parameter, Node-RED's outputs).
  const cli = Object.keys(CLI_FLAGS)
    .filter((n) => n !== 'events' && !liveOnly.includes(n))
    .sort();
  expect(Object.keys(CLI_FLAGS)).toEqual(expect.arrayContaining(liveOnly));
  expect([...NODE_RED_OPTIONS]).toEqual(expect.arrayContaining(liveOnly));
  expect(nodeRed).toEqual(n8n);
  expect(cli).toEqual(n8n);
  expect(Object.keys(CLI_FLAGS)).toContain('events');
  // The rest are the core's own tuning, offered by no host.
  expect(table.filter((o) => !n8n.includes(o.name) && !liveOnly.includes(o.name) && o.name !== 'events').map((o) => o.name)).toEqual(['recheckSeconds', 'maxResults', 'streamWaitSeconds', 'quotaPauseSeconds', 'jpegQuality']);
});

test('the n8n trigger has a parameter for each option, with the table default, range and choices, and an error label', () => {
  const props = new FaceMatchTrigger().description.properties;
  const options = props.find((p) => p.name === 'options')!.options as INodeProperties[];
  for (const [name, where] of Object.entries(N8N_PLACEMENT)) {
    const o = spec(name);
    const p = (where === 'options' ? options : props).find((x) => x.name === o.name);
    expect([o.name, p?.displayName]).toEqual([o.name, o.label]);
    if (o.kind === 'number' || o.kind === 'integer') {
      expect([o.name, p!.default, p!.typeOptions?.minValue, p!.typeOptions?.maxValue]).toEqual([o.name, o.default, o.min, o.max]);
    } else if (o.kind === 'boolean' || o.kind === 'choice' || (o.kind === 'list' && o.choices)) {
      expect([o.name, p!.default]).toEqual([o.name, o.default]);
    }
    if (o.kind === 'choice' || (o.kind === 'list' && o.choices)) expect((p!.options as { value: string }[]).map((c) => c.value)).toEqual(o.choices!.map((c) => c.value));
    // The clip settings show once Clips is on.
    if (where === 'clips') expect([o.name, p!.displayOptions]).toEqual([o.name, { show: { clips: [true] } }]);
    expect(PARAMETER_LABELS[o.name]).toContain(o.label);
  }
});

/** The definition watch.html registers, from running its script with a stand-in of the editor's RED. */
function editorDefinition(html: string): { defaults: Record<string, { value: unknown; validate?: (v: unknown) => boolean }> } {
  const open = '<script type="text/javascript">';
  const script = html.slice(html.indexOf(open) + open.length, html.indexOf('</script>'));
  let definition: unknown;
  const RED = { nodes: { registerType: (_type: string, def: unknown) => (definition = def) }, validators: { regex: (re: RegExp) => (v: unknown) => re.test(String(v)) } };
  runInNewContext(script, { RED, window: {} });
  return definition as ReturnType<typeof editorDefinition>;
}

test('the Node-RED editor has a field, the table default and range and a line of help for each option, and the node reads each', () => {
  const html = readFileSync(path.join(ROOT, 'node-red/watch.html'), 'utf8');
  const help = readFileSync(path.join(ROOT, 'node-red/locales/en-US/watch.html'), 'utf8');
  const { defaults: editor } = editorDefinition(html);
  const defaults: Record<string, unknown> = { service: 'svc', roomId: 'r', collectionId: 'c' };
  for (const o of NODE_RED_OPTIONS.map(spec)) {
    const entry = editor[o.name];
    expect([o.name, entry !== undefined]).toEqual([o.name, true]);
    const expected = o.default === undefined ? '' : o.kind === 'boolean' ? o.default : String(o.default);
    expect([o.name, entry.value]).toEqual([o.name, expected]);
    expect([o.name, html.includes(`id="node-input-${o.name}"`)]).toEqual([o.name, true]);
    defaults[o.name] = entry.value;
    if (o.kind === 'choice') for (const c of o.choices!) expect(html).toContain(`<option value="${c.value}">`);
    if (o.kind === 'number' || o.kind === 'integer') {
      // The editor accepts what the core accepts: empty (the default), the default, the ends of the range; nothing past them.
      const ok = (v: number | string): boolean => entry.validate!(String(v));
      const accepted = ['', entry.value as string, ...(o.min !== undefined ? [o.min] : []), ...(o.max !== undefined ? [o.max] : [])];
      expect([o.name, accepted.map(ok)]).toEqual([o.name, accepted.map(() => true)]);
      const below = o.min === undefined ? undefined : o.min > 0 ? o.min * 0.999 : o.min - 0.001;
      const above = o.max === undefined ? undefined : o.max * 1.001 + 0.001;
      const refused = ['abc', ...(below !== undefined ? [below] : []), ...(above !== undefined ? [above] : []), ...(o.kind === 'integer' ? [Number(o.default) + 0.5] : [])];
      expect([o.name, refused.map(ok)]).toEqual([o.name, refused.map(() => false)]);
    }
  }
  // One <dt> of help per setting in the Settings part of the sidebar help, one for the clips folder and one for Keep history.
  const settings = help.slice(help.indexOf('<h3>Settings</h3>'), help.indexOf('<h3>Details</h3>'));
  expect(settings.match(/<dt>/g)).toHaveLength(NODE_RED_OPTIONS.length + 2);
  expect(settings).toContain('<dt>Keep history</dt>');
  // The editor's defaults, read by the node, give the core's defaults.
  const read = watchSettings(defaults as WatchDef, {} as never) as Record<string, unknown>;
  for (const o of NODE_RED_OPTIONS.map(spec).filter((x) => x.default !== undefined)) expect([o.name, read[o.name]]).toEqual([o.name, o.default]);
});

test('the CLI has a flag and a VS_ variable for each option, and --help gives its default', () => {
  const text = helpText();
  for (const [name, { flag }] of Object.entries(CLI_FLAGS)) {
    const o = spec(name);
    const line = text.split('\n').find((l) => l.trimStart().startsWith(`--${flag} `) || l.trim() === `--${flag}`);
    expect([o.name, line !== undefined]).toEqual([o.name, true]);
    expect(line).toContain(`[VS_${flag.toUpperCase().replace(/-/g, '_')}]`);
    if (o.default !== undefined && o.kind !== 'boolean') expect(line).toContain(`default ${Array.isArray(o.default) ? o.default.join(',') : o.default}`);
  }
});
