import type { ICredentialDataDecryptedObject, ICredentialsDecrypted, ICredentialTestFunctions, IExecuteFunctions, INodeCredentialTestResult, INodeProperties, ITriggerFunctions } from 'n8n-workflow';
import { InputError } from '../../shared/errors';
import { appHistoryFile, historyProblem, type HistoryLocation } from '../../shared/history/leases';

export { useHistory } from '../../shared/history/leases';

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
  return appHistoryFile('N8N_USER_FOLDER', '.n8n');
}

/** Where the node's history is, as its History Store parameter (item `i` of an action, or the trigger's) says. */
export async function historyLocation(ctx: IExecuteFunctions | ITriggerFunctions, i = 0): Promise<HistoryLocation> {
  const choice = 'getInputData' in ctx ? (ctx.getNodeParameter('historyStore', i, 'local') as string) : (ctx.getNodeParameter('historyStore', 'local') as string);
  if (choice !== 'postgres') return { location: localHistoryFile(), makeFolder: true };
  return credentialLocation(await ctx.getCredentials(HISTORY_CREDENTIAL));
}

/** The PostgreSQL history a Vision Streaming History credential names, checked. */
function credentialLocation(credentials: ICredentialDataDecryptedObject): HistoryLocation {
  const url = typeof credentials.url === 'string' ? credentials.url.trim() : '';
  const media = typeof credentials.mediaFolder === 'string' ? credentials.mediaFolder.trim() : '';
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new InputError('invalid_input', 'The Vision Streaming History credential needs a Connection URL starting with postgres://', { field: 'historyUrl', limit: 'a postgres:// URL' });
  if (!media) throw new InputError('invalid_input', 'The Vision Streaming History credential needs a Media Folder every n8n machine reaches', { field: 'historyMedia', limit: 'a folder path' });
  return { location: url, media };
}

/** The credential test of a Vision Streaming History credential: the database opens (its tables made or checked) and the media folder is usable. */
export async function testHistoryCredential(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
  try {
    const problem = await historyProblem(credentialLocation(credential.data ?? {}));
    return problem ? { status: 'Error', message: problem } : { status: 'OK', message: 'The history database opens and its media folder is usable' };
  } catch (err) {
    return { status: 'Error', message: err instanceof Error ? err.message : String(err) };
  }
}
