import { readFile, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClipEvent } from './events';

/** The video's mime type per container, so that a chat node sends it as a video. */
const MIME_TYPES: Readonly<Record<string, string>> = { webm: 'video/webm', mp4: 'video/mp4' };

/** A written clip's file as a host hands it on: its bytes, its file name and its mime type. */
export interface ClipFile {
  data: Buffer;
  fileName: string;
  mimeType: string;
}

/** A written clip's file (undefined for a clip that could not be made). */
export async function readClipFile(event: ClipEvent): Promise<ClipFile | undefined> {
  if (event.error || !event.path) return undefined;
  const data = await readFile(event.path);
  return { data, fileName: path.basename(event.path), mimeType: MIME_TYPES[event.container ?? ''] ?? 'application/octet-stream' };
}

/** Removes a clip's file once a host holds its copy; a file already gone is no failure. */
export async function removeClipFile(event: ClipEvent): Promise<void> {
  if (event.path) await unlink(event.path).catch(() => undefined);
}

/**
 * A folder for clips inside an application's own folder: `appFolder` (e.g. '.n8n') in the folder
 * the environment variable `userFolderVar` names, else in the home folder, then `clips`.
 */
export function appClipsFolder(userFolderVar: string, appFolder: string): string {
  return path.join(process.env[userFolderVar] || os.homedir(), appFolder, 'clips');
}
