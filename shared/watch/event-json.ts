import type { ArrivedEvent, ClipEvent, LeftEvent, MatchEvent, StatusEvent, UnknownEvent } from './events';
import type { Box } from './geometry';

/**
 * One mapping from the watcher's events to what the hosts hand on, by rule rather than field by
 * field, so that a field the core adds reaches every host without a change here:
 * - the pictures (an event's Buffers) are taken out, named in camelCase (snapshot, face, snapshotBoxes);
 * - Node-RED's payload is the rest as it is (snake_case, as the core has it);
 * - n8n's JSON is the rest with every key in camelCase, into nested objects and arrays, except the
 *   few names of RENAMES that n8n items had before the rule; an error is its own JSON view.
 */

/** The events the hosts hand on as items or messages (errors are reported as failures instead). */
export type HostEvent = MatchEvent | UnknownEvent | ArrivedEvent | LeftEvent | StatusEvent;

/** The names of the events the hosts hand on. */
export const HOST_EVENTS = ['match', 'unknown', 'arrived', 'left', 'status'] as const satisfies readonly HostEvent['event'][];

/** A JSON value as n8n items hold it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object as n8n items hold it. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** An event's pictures, each under its camelCase name. */
export type EventBinaries = Record<string, Buffer>;

/** An event split into its fields (as the core has them) and its pictures. */
export interface SplitEvent {
  fields: Record<string, unknown>;
  binaries: EventBinaries;
}

/** A rename: the names the field takes in an n8n item, and its value there. */
interface Rename {
  readonly names: readonly string[];
  readonly json: (value: unknown, owner: Readonly<Record<string, unknown>>) => JsonObject;
}

const BOX_NAMES = ['left', 'top', 'right', 'bottom', 'width', 'height'] as const;

/**
 * The fields whose n8n names are not the rule's: the names items had before it, which workflows
 * read, so each stays as it was. Every other field is named by camelCase().
 */
const RENAMES: Readonly<Record<string, Rename>> = {
  room: { names: ['roomId'], json: (value) => ({ roomId: jsonValue(value) }) },
  // With a people table; a person whose name the table lacks still has the key, as null.
  name: { names: ['personName'], json: (value) => ({ personName: jsonValue(value) }) },
  person_id: { names: ['personId'], json: (value, owner) => ({ personId: jsonValue(value), personName: jsonValue(owner.name ?? null) }) },
  // Flat, with the size worked out: an IF node or a crop reads them without an expression.
  location: { names: BOX_NAMES, json: (value) => boxJson(value as Box) },
  // Status items have carried counts as the core names them since before the rule.
  api_calls: { names: ['api_calls'], json: (value) => ({ api_calls: jsonValue(value) }) },
};

/** A snake_case name in camelCase (`stream_id` → `streamId`, `duration_s` → `durationS`). */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_whole, c: string) => c.toUpperCase());
}

/** The names a field of a core event takes in an n8n item: its rename's, else its camelCase name. */
export function itemFieldNames(field: string): readonly string[] {
  return Object.hasOwn(RENAMES, field) ? RENAMES[field].names : [camelCase(field)];
}

/** The fields renamed in n8n items, each with the names it takes there. */
export function itemRenames(): { field: string; names: readonly string[] }[] {
  return Object.entries(RENAMES).map(([field, r]) => ({ field, names: r.names }));
}

/** An event's pictures taken out (named in camelCase) from the rest of its fields, left as they are. */
export function splitBinaries(event: HostEvent | ClipEvent): SplitEvent {
  const fields: Record<string, unknown> = {};
  const binaries: EventBinaries = {};
  for (const [key, value] of Object.entries(event)) {
    if (Buffer.isBuffer(value)) binaries[camelCase(key)] = value;
    else if (value !== undefined) fields[key] = value;
  }
  return { fields, binaries };
}

/** An event (a clip's too) as an n8n item's JSON (camelCase by rule, the names of RENAMES kept) and its pictures. */
export function eventJson(event: HostEvent | ClipEvent): { json: JsonObject; binaries: EventBinaries } {
  const { fields, binaries } = splitBinaries(event);
  return { json: objectJson(fields), binaries };
}

function objectJson(obj: Readonly<Record<string, unknown>>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined) continue;
    if (Object.hasOwn(RENAMES, key)) Object.assign(out, RENAMES[key].json(value, obj));
    else out[camelCase(key)] = jsonValue(value);
  }
  return out;
}

function jsonValue(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value !== 'object') return null;
  // An error names its own fields in its JSON view (safe ones only: no stack, no response): taken as it is.
  if ('toJSON' in value && typeof value.toJSON === 'function') return JSON.parse(JSON.stringify(value)) as JsonValue;
  return objectJson(value as Record<string, unknown>);
}

function boxJson(b: Box): JsonObject {
  return { left: b.left, top: b.top, right: b.right, bottom: b.bottom, width: b.right - b.left, height: b.bottom - b.top };
}
