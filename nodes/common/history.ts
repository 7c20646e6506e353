import type { IExecuteFunctions, INodeProperties, ITriggerFunctions } from 'n8n-workflow';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../shared/errors';
import { acquireHistory, type HistoryLocation } from '../../shared/history/leases';
import type { HistoryStore } from '../../shared/history/types';

/** The credential of a history several n8n machines share (PostgreSQL and a shared media folder). */
export const HISTORY_CREDENTIAL = 'visionStreamingHistory';

type Shown = NonNullable<INodeProperties['displayOptions']>['show'];

/** The History Store parameter: this n8n's SQLite file, or the PostgreSQL database of the credential. */
export function historyStoreParameter(show: Shown): INodeProperties {
  return {
    displayName: 'History Store',
    name: 'historyStore',
    type: 'options',
    options: [
      { name: 'This N8n (SQLite)', value: 'local', description: "A SQLite file in n8n's user folder (.n8n/vision-streaming/history.sqlite), its media beside it" },
      { name: 'PostgreSQL (Credential)', value: 'postgres', description: 'The database and shared media folder of a Vision Streaming History credential: for several n8n machines and queue mode' },
    ],
    default: 'local',
    description: 'Where the visits are kept: the Face Match Trigger with Keep History writes there, History searches it, Person > Forget erases from it',
    displayOptions: { show },
  };
}

/** The SQLite file of this n8n's history: in .n8n of N8N_USER_FOLDER or the home folder, where n8n keeps its own. */
export function localHistoryFile(): string {
  return path.join(process.env.N8N_USER_FOLDER || os.homedir(), '.n8n', 'vision-streaming', 'history.sqlite');
}

/** Where the node's history is, as its History Store parameter (item `i` of an action, or the trigger's) says. */
export async function historyLocation(ctx: IExecuteFunctions | ITriggerFunctions, i = 0): Promise<HistoryLocation> {
  const choice = 'getInputData' in ctx ? (ctx.getNodeParameter('historyStore', i, 'local') as string) : (ctx.getNodeParameter('historyStore', 'local') as string);
  if (choice !== 'postgres') return { location: localHistoryFile(), makeFolder: true };
  const credentials = await ctx.getCredentials(HISTORY_CREDENTIAL);
  const url = typeof credentials.url === 'string' ? credentials.url.trim() : '';
  const media = typeof credentials.mediaFolder === 'string' ? credentials.mediaFolder.trim() : '';
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new InputError('invalid_input', 'The Vision Streaming History credential needs a Connection URL starting with postgres://', { field: 'historyUrl', limit: 'a postgres:// URL' });
  if (!media) throw new InputError('invalid_input', 'The Vision Streaming History credential needs a Media Folder every n8n machine reaches', { field: 'historyMedia', limit: 'a folder path' });
  return { location: url, media };
}

/**
 * Runs `use` on the history at `where` (shared in this process with a trigger that keeps it open,
 * else opened for the call and closed after). `ifExists`: a local history never written is not made
 * for a call that only erases (undefined then).
 */
export async function useHistory<T>(where: HistoryLocation, use: (store: HistoryStore) => Promise<T>, ifExists = false): Promise<T | undefined> {
  if (ifExists && !where.location.includes('://') && !existsSync(where.location)) return undefined;
  const lease = acquireHistory(where);
  try {
    return await use(await lease.store());
  } finally {
    await lease.release();
  }
}
