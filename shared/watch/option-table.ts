/**
 * The watcher's options, each described once: name, kind, default, range, unit and one line of
 * help. The TypeScript types of the options (the table's part of WatchOptions, and the values the
 * core resolves them to) are derived from it, and the core checks values against it. Where each host
 * shows an option (n8n's parameters, the command line's flags, the Node-RED editor) is the host's
 * own business: each keeps its placement beside its code, built from or checked against this table.
 */

/** One option of the watcher. */
export interface OptionSpec {
  /** The option's name in WatchOptions (and in every host). */
  readonly name: string;
  /** Its name as the editors show it (Title Case, unit in brackets). */
  readonly label: string;
  /** One line of help, as the editors and --help show it. */
  readonly help: string;
  readonly kind: 'number' | 'integer' | 'boolean' | 'choice' | 'list' | 'labels';
  /** The default when the option is not given (undefined: none, e.g. every stream). */
  readonly default?: number | boolean | string | readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Unit of a number, as --help shows it. */
  readonly unit?: string;
  /** Decimals an editor offers for a number. */
  readonly precision?: number;
  /** The values of a choice or a list, with a few words each. */
  readonly choices?: readonly { value: string; name: string; help?: string }[];
  /** The core takes the number in milliseconds under this name: the value times `per`. */
  readonly inMs?: { readonly name: string; readonly per: number };
}

const DECODERS = [
  { value: 'auto', name: 'Auto', help: 'Ffmpeg when one is found, else the built-in decoder' },
  { value: 'ffmpeg', name: 'Ffmpeg' },
  { value: 'wasm', name: 'Built-in (WebAssembly)' },
] as const;

/** Every option a host can set, in the order the editors show them. */
export const WATCH_OPTIONS = [
  {
    name: 'events',
    label: 'Events',
    help: 'Which events are reported',
    kind: 'list',
    default: ['match', 'unknown', 'arrived', 'left', 'status', 'error'],
    choices: [
      { value: 'match', name: 'Match', help: 'A face of the collection appeared' },
      { value: 'unknown', name: 'Unknown Face', help: 'A face the collection does not know appeared' },
      { value: 'status', name: 'Status', help: 'The watcher joined, rejoined, paused, resumed, stopped, or misses a named stream' },
      { value: 'error', name: 'Error', help: 'A call failed or the watcher gave up' },
      { value: 'arrived', name: 'Arrived', help: 'Someone\'s visit began: a person, a remembered visitor, or a stranger (once per visit, whatever the cooldown)' },
      { value: 'left', name: 'Left', help: 'A visit is over: someone who arrived has not been seen for a while (Left After), or the watch stopped' },
    ],
  },
  {
    name: 'threshold',
    label: 'Threshold',
    help: 'Least similarity (0 to 1) for a face to count as a match; below it the face is unknown',
    kind: 'number',
    default: 0.7,
    min: 0,
    max: 1,
    precision: 2,
  },
  {
    name: 'cooldownSeconds',
    label: 'Cooldown (Seconds)',
    help: 'One match per person within this time (one alert per visit)',
    kind: 'number',
    default: 60,
    min: 0,
    max: 86_400,
    unit: 's',
    inMs: { name: 'cooldownMs', per: 1000 },
  },
  {
    name: 'fps',
    label: 'Sample Rate (per Second)',
    help: 'Frames looked at per second and stream; frames that did not change are not sent to the API',
    kind: 'number',
    default: 2,
    min: 0.1,
    max: 30,
    precision: 1,
    unit: '/s',
  },
  {
    name: 'budgetPerSecond',
    label: 'API Call Budget (per Second)',
    help: 'Most Visual Recognition calls per second (each costs money); samples beyond it are skipped',
    kind: 'number',
    default: 5,
    min: 0.01,
    precision: 2,
    unit: '/s',
  },
  {
    name: 'labels',
    label: 'Labels',
    help: 'Names for face IDs (shown as "label" in match events) or for stream IDs (shown as "stream_label")',
    kind: 'labels',
  },
  {
    name: 'rememberVisitors',
    label: 'Remember Visitors',
    help: 'Whether to enrol each new stranger\'s face in the collection, so that one who comes back keeps one visitor ID (stores strangers\' faces: off by default)',
    kind: 'boolean',
    default: false,
  },
  {
    name: 'visitorRetentionDays',
    label: 'Visitor Retention (Days)',
    help: 'Visitors not seen for this long are removed from the collection',
    kind: 'number',
    default: 30,
    min: 1,
    max: 3650,
    unit: 'days',
    inMs: { name: 'visitorRetentionMs', per: 86_400_000 },
  },
  {
    name: 'maxVisitors',
    label: 'Max Visitors',
    help: 'Most visitors kept in the collection; past it the one seen least recently is removed',
    kind: 'integer',
    default: 200,
    min: 1,
    max: 1000,
  },
  {
    name: 'leftAfterSeconds',
    label: 'Left After (Seconds)',
    help: 'Someone who had an event and is not seen on any stream for this long has left (a left event)',
    kind: 'number',
    default: 30,
    min: 1,
    max: 86_400,
    unit: 's',
    inMs: { name: 'leftAfterMs', per: 1000 },
  },
  {
    name: 'cooldownScope',
    label: 'Cooldown Scope',
    help: 'Whether the cooldown is kept per camera or for the room as a whole',
    kind: 'choice',
    default: 'stream',
    choices: [
      { value: 'stream', name: 'Per Stream' },
      { value: 'room', name: 'Whole Room' },
    ],
  },
  {
    name: 'streams',
    label: 'Streams',
    help: 'Stream IDs to watch (the publishers\' client IDs), comma-separated; empty watches every stream of the room',
    kind: 'list',
  },
  {
    name: 'ignore',
    label: 'Ignore',
    help: 'Names (labels or people\'s names), face IDs or person IDs of people whose match, arrived and left events are not sent (the household, the staff), comma-separated; counted instead',
    kind: 'list',
  },
  {
    name: 'changeThreshold',
    label: 'Change Threshold',
    help: 'Mean brightness difference (0 to 255) below which a sample is not analysed; 0 analyses every sample',
    kind: 'number',
    default: 4,
    min: 0,
    max: 255,
    precision: 1,
  },
  {
    name: 'minFaceSize',
    label: 'Minimum Face Size (Pixels)',
    help: 'Faces whose shorter side is smaller are not compared (too small to recognise)',
    kind: 'number',
    default: 40,
    min: 8,
    max: 280,
    unit: 'px',
  },
  {
    name: 'drawBoxes',
    label: 'Draw Boxes',
    help: 'Whether to add the snapshot with the faces boxed and labelled (snapshot_boxes)',
    kind: 'boolean',
    default: false,
  },
  {
    name: 'tracks',
    label: 'Tracks',
    help: 'Whether to report, at each analysed sample, every face followed on the stream with its verdict so far (tracks events; no API calls of their own)',
    kind: 'boolean',
    default: false,
  },
  {
    name: 'stillEverySeconds',
    label: 'Still Every (Seconds)',
    help: "With tracks: how often, per stream, a tracks event carries a small JPEG of its frame (still); 0: never",
    kind: 'number',
    default: 2,
    min: 0,
    max: 3600,
    unit: 's',
    inMs: { name: 'stillEveryMs', per: 1000 },
  },
  {
    name: 'preRollSeconds',
    label: 'Pre-Roll (Seconds)',
    help: 'With clips: seconds of video before the face appeared that each clip starts with (from the key frame at or before)',
    kind: 'number',
    default: 5,
    min: 0,
    max: 30,
    unit: 's',
    inMs: { name: 'preRollMs', per: 1000 },
  },
  {
    name: 'postRollSeconds',
    label: 'Post-Roll (Seconds)',
    help: 'With clips: seconds of video each clip goes on after the visit was last seen',
    kind: 'number',
    default: 5,
    min: 0,
    max: 60,
    unit: 's',
    inMs: { name: 'postRollMs', per: 1000 },
  },
  {
    name: 'maxClipSeconds',
    label: 'Max Clip (Seconds)',
    help: 'With clips: longest clip; a visit that goes on longer is cut there',
    kind: 'number',
    default: 60,
    min: 1,
    max: 600,
    unit: 's',
    inMs: { name: 'maxClipMs', per: 1000 },
  },
  {
    name: 'clipOn',
    label: 'Clip On',
    help: 'With clips: which events start a clip (one per visit and stream)',
    kind: 'list',
    default: ['arrived'],
    choices: [
      { value: 'arrived', name: 'Arrived', help: 'A visit began (a person, a visitor or a stranger)' },
      { value: 'match', name: 'Match', help: 'A face of the collection was seen' },
      { value: 'unknown', name: 'Unknown Face', help: 'A face the collection does not know was seen' },
    ],
  },
  {
    name: 'decoder',
    label: 'Decoder',
    help: 'How video is decoded: ffmpeg when found, else the built-in WebAssembly decoder',
    kind: 'choice',
    default: 'auto',
    choices: DECODERS,
  },
  {
    name: 'codec',
    label: 'Codec',
    help: 'The video codec asked of the room',
    kind: 'choice',
    default: 'VP8',
    choices: [
      { value: 'VP8', name: 'VP8' },
      { value: 'VP9', name: 'VP9' },
      { value: 'H264', name: 'H.264' },
    ],
  },
  {
    name: 'recheckSeconds',
    label: 'Recheck (Seconds)',
    help: 'A face followed from sample to sample is compared again after this long',
    kind: 'number',
    default: 30,
    min: 1,
    max: 86_400,
    unit: 's',
    inMs: { name: 'recheckMs', per: 1000 },
  },
  {
    name: 'maxResults',
    label: 'Max Results',
    help: 'Faces of the collection each compare call returns',
    kind: 'integer',
    default: 3,
    min: 1,
    max: 1000,
  },
  {
    name: 'streamWaitSeconds',
    label: 'Stream Wait (Seconds)',
    help: 'How long named streams may take to appear before a status names them missing',
    kind: 'number',
    default: 10,
    min: 0.1,
    max: 3600,
    unit: 's',
    inMs: { name: 'streamWaitMs', per: 1000 },
  },
  {
    name: 'quotaPauseSeconds',
    label: 'Quota Pause (Seconds)',
    help: 'First pause after a spent quota (doubles while it stays spent, up to 16 times)',
    kind: 'number',
    default: 60,
    min: 0.01,
    max: 86_400,
    unit: 's',
    inMs: { name: 'quotaPauseMs', per: 1000 },
  },
  {
    name: 'jpegQuality',
    label: 'JPEG Quality',
    help: 'Quality (1 to 100) of snapshots and face crops',
    kind: 'integer',
    default: 85,
    min: 1,
    max: 100,
  },
] as const satisfies readonly OptionSpec[];

/** Names of the options in the table. */
export type WatchOptionName = (typeof WATCH_OPTIONS)[number]['name'];

/** The table entry of an option. */
export function optionSpec(name: WatchOptionName): OptionSpec {
  return WATCH_OPTIONS.find((o) => o.name === name)!;
}

/** The range of a number option in words, e.g. "0..1" or ">= 0.01". */
export function rangeText(spec: OptionSpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return `${spec.min}..${spec.max}`;
  if (spec.min !== undefined) return `>= ${spec.min}`;
  return spec.max !== undefined ? `<= ${spec.max}` : 'a number';
}

/** The option's default in words, as --help and the editors' help show it; '' when there is none. */
export function defaultText(spec: OptionSpec): string {
  const d = spec.default;
  if (d === undefined) return '';
  if (Array.isArray(d)) return d.join(',');
  return String(d);
}

type Spec = (typeof WATCH_OPTIONS)[number];

/** The values of a choice, or of a list's items: its choices' values, else any string. */
type ChoiceValue<S> = S extends { choices: readonly { value: infer V }[] } ? V : string;

/** The type of an option's value as WatchOptions takes it, from its kind and choices. */
export type OptionValue<S> = S extends { kind: 'number' | 'integer' }
  ? number
  : S extends { kind: 'boolean' }
    ? boolean
    : S extends { kind: 'choice' }
      ? ChoiceValue<S>
      : S extends { kind: 'list' }
        ? ChoiceValue<S>[]
        : S extends { kind: 'labels' }
          ? Record<string, string>
          : never;

/** The table's part of WatchOptions: each option, optional, under its name. */
export type OptionValues = { [S in Spec as S['name']]?: OptionValue<S> };

/** The value of one option in WatchOptions, by name. */
export type OptionValueOf<N extends WatchOptionName> = OptionValue<Extract<Spec, { name: N }>>;

/** The name under which the core keeps a resolved option (times in ms get their own). */
type ResolvedName<S extends Spec> = S extends { inMs: { name: infer N extends string } } ? N : S['name'];

/** An option's value once resolved: lists become sets, labels a map, the rest as given. */
type ResolvedValue<S> = S extends { kind: 'list' } ? ReadonlySet<ChoiceValue<S>> : S extends { kind: 'labels' } ? ReadonlyMap<string, string> : OptionValue<S>;

/** Whether an option always has a value once resolved: it has a default, or it is labels (an empty map). */
type AlwaysSet<S> = S extends { default: unknown } ? true : S extends { kind: 'labels' } ? true : false;

/** The table's options with defaults applied and checked, times in ms: what the watcher uses. */
export type ResolvedOptionValues = { [S in Spec as AlwaysSet<S> extends true ? ResolvedName<S> : never]: ResolvedValue<S> } & {
  [S in Spec as AlwaysSet<S> extends true ? never : ResolvedName<S>]?: ResolvedValue<S>;
};

/** A value as a host reads it from its settings, before the core checks it against the table. */
export type HostValue = number | boolean | string | readonly string[] | Readonly<Record<string, string>>;

/**
 * The options a host read, under the table's names, as WatchOptions takes them. A host hands on
 * what its settings hold (converted by the option's kind); the watcher checks every value against
 * the table when it resolves them and names the option in an InputError, so a value of the wrong
 * kind is refused there, not here.
 */
export function hostOptions(values: Iterable<readonly [WatchOptionName, HostValue | undefined]>): OptionValues {
  const out: Partial<Record<WatchOptionName, HostValue>> = {};
  for (const [name, value] of values) if (value !== undefined) out[name] = value;
  return out as OptionValues;
}
