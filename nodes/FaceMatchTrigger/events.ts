import type { INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';
import { eventJson, type HostEvent } from '../../shared/watch/event-json';

/** The watcher's events that start a workflow. */
export type ItemEvent = HostEvent;

/** The end of each picture's file name, after the event and its time; a picture added later gets its own name. */
const FILE_SUFFIX: Readonly<Record<string, string>> = { snapshot: '', face: '-face', snapshotBoxes: '-boxes' };

/** An event of the watcher as one n8n item: the core's mapping to flat camelCase JSON, its pictures as binary JPEG. */
export async function eventItem(ctx: ITriggerFunctions, event: ItemEvent): Promise<INodeExecutionData> {
  const { json, binaries } = eventJson(event);
  const names = Object.keys(binaries);
  if (names.length === 0) return { json };
  const stamp = event.time.replace(/[:.]/g, '-');
  const binary: NonNullable<INodeExecutionData['binary']> = {};
  // The face is ready for Visual Recognition > Collection Face > Add (its Input Binary Field set to "face").
  for (const name of names) binary[name] = await ctx.helpers.prepareBinaryData(binaries[name], `${event.event}-${stamp}${FILE_SUFFIX[name] ?? `-${name}`}.jpg`, 'image/jpeg');
  return { json, binary };
}
