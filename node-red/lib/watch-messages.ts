import { splitBinaries, type HostEvent } from '../../shared/watch/event-json';

/** A watcher event as a Node-RED message. */
export interface WatchMessage {
  topic: HostEvent['event'];
  /** The event without its pictures, snake_case as the core has it. */
  payload: Record<string, unknown>;
  /** The pictures, JPEG Buffers, each under its camelCase name: snapshot, face, snapshotBoxes. */
  [picture: string]: unknown;
}

/** The message of a watcher event: topic the event's name, payload its fields, its pictures beside the payload on msg. */
export function watchMessage(event: HostEvent): WatchMessage {
  const { fields, binaries } = splitBinaries(event);
  return { topic: event.event, payload: fields, ...binaries };
}
