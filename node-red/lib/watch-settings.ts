import { InputError } from '../../shared/errors';
import type { WatchOptions } from '../../shared/watch';
import { hostOptions, WATCH_OPTIONS, type HostValue, type OptionSpec, type WatchOptionName } from '../../shared/watch/option-table';
import type { FlowMessage, ServiceNodeDef } from './action-node';
import { optionalNumber, override } from './action-node';
import { labelsFrom } from './labels';

/**
 * The watcher options the face watch node offers, each a setting of the node under the option's
 * name (watch.html holds its field, default and range; a test holds them to the core's table).
 * The events are chosen by the node's outputs and its unknowns switch instead.
 */
export const NODE_RED_OPTIONS = [
  'threshold',
  'cooldownSeconds',
  'fps',
  'budgetPerSecond',
  'labels',
  'rememberVisitors',
  'visitorRetentionDays',
  'maxVisitors',
  'leftAfterSeconds',
  'cooldownScope',
  'streams',
  'ignore',
  'changeThreshold',
  'minFaceSize',
  'drawBoxes',
  'tracks',
  'stillEverySeconds',
  'preRollSeconds',
  'postRollSeconds',
  'maxClipSeconds',
  'clipOn',
  'decoder',
  'codec',
] as const satisfies readonly WatchOptionName[];

/**
 * Settings of the face watch node as the editor stores them: the options above under their own
 * names (numbers as text), plus the node's own switches.
 */
export interface WatchDef extends ServiceNodeDef, Partial<Record<string, unknown>> {
  roomId?: string;
  collectionId?: string;
  /** Names for face ids: a JSON object text {"<face_id>": "Alice"}. */
  labels?: string;
  unknowns?: boolean;
  autoStart?: boolean;
  /** A folder to write each visit's clip to (empty: no clips); the clip goes out on output 5. */
  clips?: string;
  /** Whether the watcher keeps every visit in the config node's history. */
  keepHistory?: boolean;
}

/**
 * The warning for a node of an older flow that turned the werift speed-ups off, a setting of the
 * node then: they are a process setting now, which the node cannot change for every other watcher.
 */
export function weriftSpeedupsWarning(def: WatchDef): string | undefined {
  if (def.weriftSpeedups !== false && def.weriftSpeedups !== 'false') return undefined;
  return 'the WebRTC speed-ups are no longer a setting of this node: they are a process setting, off with the environment variable VS_WERIFT_SPEEDUPS=0 when Node-RED starts; this node runs as the process has them';
}

/** What a watcher is started with: its options without the clients. */
export type WatchSettings = Omit<WatchOptions, 'vision' | 'streaming'>;

/** Options a control message may change for one (re)start. */
const FROM_MESSAGE: ReadonlySet<WatchOptionName> = new Set(['threshold', 'labels']);

/**
 * The watcher options for one start: node settings, overridden by the control message's
 * roomId, collectionId, threshold and labels. The core checks every value and names the field.
 */
export function watchSettings(def: WatchDef, msg: FlowMessage): WatchSettings {
  const roomId = override(msg, 'roomId', def.roomId);
  const collectionId = override(msg, 'collectionId', def.collectionId);
  if (typeof roomId !== 'string' || roomId.trim() === '') throw new InputError('invalid_input', 'the face watch node needs a room id (setting or msg.roomId)', { field: 'roomId', limit: 'non-empty string' });
  if (typeof collectionId !== 'string' || collectionId.trim() === '') {
    throw new InputError('invalid_input', 'the face watch node needs a collection id (setting or msg.collectionId)', { field: 'collectionId', limit: 'non-empty string' });
  }
  const offered: ReadonlySet<WatchOptionName> = new Set(NODE_RED_OPTIONS);
  const values = WATCH_OPTIONS.flatMap((o): [WatchOptionName, HostValue | undefined][] => {
    if (!offered.has(o.name)) return [];
    const raw = FROM_MESSAGE.has(o.name) ? override(msg, o.name, def[o.name]) : def[o.name];
    return [[o.name, fromSetting(o, raw)]];
  });
  const clips = typeof def.clips === 'string' && def.clips.trim() !== '' ? def.clips.trim() : undefined;
  return {
    ...hostOptions(values),
    roomId,
    collectionId,
    ...(clips ? { clips } : {}),
    // Matches, status, errors, arrivals and departures always; unknown faces unless the node turns them off.
    events: def.unknowns === false ? ['match', 'arrived', 'left', 'status', 'error'] : ['match', 'unknown', 'arrived', 'left', 'status', 'error'],
  };
}

/** A setting as the core takes it: '' is "not set", numbers from text, lists from comma-separated text. */
function fromSetting(o: OptionSpec, raw: unknown): HostValue | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  switch (o.kind) {
    case 'number':
    case 'integer':
      return optionalNumber(raw);
    case 'boolean':
      return raw === true || raw === 'true';
    case 'list':
      return Array.isArray(raw)
        ? raw
        : String(raw)
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    case 'labels':
      return labelsFrom(raw, 'labels');
    default:
      // A choice: the editor's select gives one of its values; the core refuses any other by name.
      return String(raw);
  }
}
