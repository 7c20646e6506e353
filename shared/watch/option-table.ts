/**
 * The watcher's options, each described once: name, kind, default, range, unit and one line of
 * help. The core checks values against it; the n8n trigger's parameters, the Node-RED watch node's
 * settings reader, the CLI's flags and --help, and the hosts' error labels are built from it, and a
 * test holds the Node-RED editor's defaults and help to it.
 */

/** How a host presents an option: where it sits and under which name. */
export interface OptionHosts {
  /** n8n Face Match Trigger: a top-level parameter ('main') or one of its Options ('options'). */
  n8n?: 'main' | 'options';
  /** Node-RED face watch node: a setting of the node under the option's name. */
  nodeRed?: boolean;
  /** `vision-streaming watch`: the flag (without --) and what its value looks like; the variable is VS_ + the flag in upper snake case. */
  cli?: { flag: string; value?: string };
}

/** One option of the watcher. */
export interface OptionSpec {
  /** The option's name in WatchOptions (and in every host). */
  readonly name: string;
  /** Its name as the n8n editor shows it (Title Case, unit in brackets). */
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
  /** Decimals the n8n editor offers for a number. */
  readonly precision?: number;
  /** The values of a choice or a list, with a few words each. */
  readonly choices?: readonly { value: string; name: string; help?: string }[];
  readonly hosts: OptionHosts;
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
    // n8n picks its events with its own parameter (default: Match) and Node-RED with outputs.
    hosts: { cli: { flag: 'events', value: 'LIST' } },
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
    hosts: { n8n: 'main', nodeRed: true, cli: { flag: 'threshold', value: 'N' } },
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
    hosts: { n8n: 'main', nodeRed: true, cli: { flag: 'cooldown', value: 'SECONDS' } },
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
    hosts: { n8n: 'main', nodeRed: true, cli: { flag: 'fps', value: 'N' } },
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
    hosts: { n8n: 'main', nodeRed: true, cli: { flag: 'budget', value: 'N' } },
  },
  {
    name: 'labels',
    label: 'Labels',
    help: 'Names for face IDs (shown as "label" in match events) or for stream IDs (shown as "stream_label")',
    kind: 'labels',
    hosts: { n8n: 'main', nodeRed: true, cli: { flag: 'labels', value: 'FILE' } },
  },
  {
    name: 'rememberVisitors',
    label: 'Remember Visitors',
    help: 'Whether to enrol each new stranger\'s face in the collection, so that one who comes back keeps one visitor ID (stores strangers\' faces: off by default)',
    kind: 'boolean',
    default: false,
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'remember-visitors' } },
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
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'visitor-retention-days', value: 'N' } },
  },
  {
    name: 'maxVisitors',
    label: 'Max Visitors',
    help: 'Most visitors kept in the collection; past it the one seen least recently is removed',
    kind: 'integer',
    default: 200,
    min: 1,
    max: 1000,
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'max-visitors', value: 'N' } },
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
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'left-after', value: 'SECONDS' } },
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
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'cooldown-scope', value: 'stream|room' } },
  },
  {
    name: 'streams',
    label: 'Streams',
    help: 'Stream IDs to watch (the publishers\' client IDs), comma-separated; empty watches every stream of the room',
    kind: 'list',
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'streams', value: 'ID,ID' } },
  },
  {
    name: 'ignore',
    label: 'Ignore',
    help: 'Names (labels) or face IDs of people whose match, arrived and left events are not sent (the household, the staff), comma-separated; counted instead',
    kind: 'list',
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'ignore', value: 'NAME,...' } },
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
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'change-threshold', value: 'N' } },
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
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'min-face-size', value: 'PX' } },
  },
  {
    name: 'drawBoxes',
    label: 'Draw Boxes',
    help: 'Whether to add the snapshot with the faces boxed and labelled (snapshot_boxes)',
    kind: 'boolean',
    default: false,
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'boxes' } },
  },
  {
    name: 'decoder',
    label: 'Decoder',
    help: 'How video is decoded: ffmpeg when found, else the built-in WebAssembly decoder',
    kind: 'choice',
    default: 'auto',
    choices: DECODERS,
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'decoder', value: 'auto|ffmpeg|wasm' } },
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
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'codec', value: 'VP8|VP9|H264' } },
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
    hosts: {},
  },
  {
    name: 'maxResults',
    label: 'Max Results',
    help: 'Faces of the collection each compare call returns',
    kind: 'integer',
    default: 3,
    min: 1,
    max: 1000,
    hosts: {},
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
    hosts: {},
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
    hosts: {},
  },
  {
    name: 'weriftSpeedups',
    label: 'WebRTC Speed-Ups',
    help: "Whether this watcher's WebRTC receive path runs with the package's measured werift speed-ups (off: werift as published)",
    kind: 'boolean',
    default: true,
    hosts: { n8n: 'options', nodeRed: true, cli: { flag: 'werift-speedups', value: 'on|off' } },
  },
  {
    name: 'jpegQuality',
    label: 'JPEG Quality',
    help: 'Quality (1 to 100) of snapshots and face crops',
    kind: 'integer',
    default: 85,
    min: 1,
    max: 100,
    hosts: {},
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
