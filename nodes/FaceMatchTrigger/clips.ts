import { readFile, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';
import type { ClipEvent } from '../../shared/watch';
import { eventJson } from '../../shared/watch/event-json';

/** The video's mime type per container, so a Telegram or Slack node sends it as a video. */
const MIME_TYPES: Readonly<Record<string, string>> = { webm: 'video/webm', mp4: 'video/mp4' };

/**
 * The folder n8n keeps its own files in: `.n8n` in N8N_USER_FOLDER, else in the home folder, as
 * n8n itself places it (a trigger has no helper that gives it).
 */
function n8nFolder(): string {
  return path.join(process.env.N8N_USER_FOLDER || os.homedir(), '.n8n');
}

/** The folder the watcher writes clips to, or undefined when Clips is off: the one given, else clips in n8n's folder. */
export function clipsFolder(ctx: ITriggerFunctions): string | undefined {
  if (!(ctx.getNodeParameter('clips', false) as boolean)) return undefined;
  const given = String(ctx.getNodeParameter('clipsFolder', '') ?? '').trim();
  return given !== '' ? given : path.join(n8nFolder(), 'clips');
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
  if (event.error || !event.path) return { json };
  const data = await readFile(event.path);
  const clip = await ctx.helpers.prepareBinaryData(data, path.basename(event.path), MIME_TYPES[event.container ?? ''] ?? 'application/octet-stream');
  return { json, binary: { clip } };
}

/** Removes a clip's file once its item holds the video (or no item will be made): n8n's binary data is the copy kept. */
export async function removeClipFile(event: ClipEvent): Promise<void> {
  if (event.path) await unlink(event.path).catch(() => undefined);
}
