import type { INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';
import { appClipsFolder, readClipFile } from '../../shared/clips/host-file';
import type { ClipEvent } from '../../shared/watch';
import { eventJson } from '../../shared/watch/event-json';

export { removeClipFile } from '../../shared/clips/host-file';

/**
 * The folder the watcher writes clips to, or undefined when Clips is off: the one given, else clips
 * in n8n's own folder (.n8n in N8N_USER_FOLDER or the home folder, where n8n itself puts it).
 */
export function clipsFolder(ctx: ITriggerFunctions): string | undefined {
  if (!(ctx.getNodeParameter('clips', false) as boolean)) return undefined;
  const given = String(ctx.getNodeParameter('clipsFolder', '') ?? '').trim();
  return given !== '' ? given : appClipsFolder('N8N_USER_FOLDER', '.n8n');
}

/** Whether the clip files stay in the folder after their items were made (Keep Clip Files). */
export function keepClipFiles(ctx: ITriggerFunctions): boolean {
  return ctx.getNodeParameter('keepClipFiles', false) as boolean;
}

/**
 * A clip event as one n8n item: the event's fields in camelCase (as every item's), the video as the
 * binary property `clip`. A clip that could not be made is an item with `error` and no binary.
 */
export async function clipItem(ctx: ITriggerFunctions, event: ClipEvent): Promise<INodeExecutionData> {
  const { json } = eventJson(event);
  const file = await readClipFile(event);
  if (!file) return { json };
  return { json, binary: { clip: await ctx.helpers.prepareBinaryData(file.data, file.fileName, file.mimeType) } };
}
