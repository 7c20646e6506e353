/**
 * Lists that editors show when a user picks a room or a face collection instead of pasting its
 * id: n8n's resource locators and the Node-RED editor's pickers both shape the same entries.
 */
import { InputError } from '../errors';
import type { Room } from '../streaming/types';
import type { FaceCollection } from '../vision/types';

/** One entry of a picker: what the user reads, the id that is stored, and a line of detail. */
export interface PickEntry {
  name: string;
  value: string;
  description: string;
}

/** The services' ids are UUIDs; a picked or pasted id is held to this shape before a run. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const UUID = new RegExp(UUID_PATTERN);

/** Whether a string has the shape of the services' ids. */
export function isUuid(value: string): boolean {
  return UUID.test(value.trim());
}

/** Checks an id a user typed for `field` and returns it trimmed; the message names the field. */
export function checkUuid(value: unknown, field: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw new InputError('invalid_input', `${field} is required`, { field, limit: 'a UUID' });
  if (!UUID.test(text)) {
    throw new InputError('invalid_input', `${field} must be a UUID like 0f8fad5b-d9cb-469f-a165-70867728950e (got "${shorten(text)}")`, { field, limit: 'a UUID' });
  }
  return text;
}

/** A room as a picker entry: on air first, with its up/down counts. */
export function roomEntry(room: Room): PickEntry {
  const onAir = room.up_count > 0;
  const state = onAir ? 'on air' : 'idle';
  return {
    name: `${room.id} (${state}, ${room.up_count} up / ${room.down_count} down)`,
    value: room.id,
    description: `${state}; ${room.up_count} publishing, ${room.down_count} viewing; created ${room.created_at}`,
  };
}

/** A collection as a picker entry (the service's list gives ids only, no face counts). */
export function collectionEntry(collection: FaceCollection): PickEntry {
  return { name: collection.collectionId, value: collection.collectionId, description: 'face collection' };
}

/** Rooms as picker entries, filtered by a search text, rooms on air first and then the newest. */
export function roomEntries(rooms: readonly Room[], filter?: string): PickEntry[] {
  const needle = (filter ?? '').trim().toLowerCase();
  return rooms
    .filter((room) => needle === '' || room.id.toLowerCase().includes(needle))
    .sort((a, b) => Number(b.up_count > 0) - Number(a.up_count > 0) || b.created_at.localeCompare(a.created_at))
    .map(roomEntry);
}

/** Collections as picker entries, filtered by a search text, in the service's order. */
export function collectionEntries(collections: readonly FaceCollection[], filter?: string): PickEntry[] {
  const needle = (filter ?? '').trim().toLowerCase();
  return collections
    .filter((collection) => needle === '' || collection.collectionId.toLowerCase().includes(needle))
    .map(collectionEntry);
}

function shorten(text: string): string {
  return text.length > 48 ? `${text.slice(0, 45)}...` : text;
}
