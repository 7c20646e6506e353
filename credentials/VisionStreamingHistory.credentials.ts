import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * Tested by the nodes that use it (testHistoryCredential: the database opens). Where the visits are kept when several n8n machines share them (queue mode, several instances):
 * a PostgreSQL database and a media folder every machine reaches. Without it, each n8n keeps its
 * history in a SQLite file of its own user folder.
 */
export class VisionStreamingHistory implements ICredentialType {
  name = 'visionStreamingHistory';

  displayName = 'Vision Streaming History (PostgreSQL)';

  icon = { light: 'file:visionStreaming.svg', dark: 'file:visionStreaming.dark.svg' } as const;

  documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-vision-streaming#history';

  properties: INodeProperties[] = [
    // The URL holds the database user's password: shown as a password, kept out of the editor.
    // eslint-disable-next-line @n8n/community-nodes/credential-unnecessary-password
    {
      displayName: 'Connection URL',
      name: 'url',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      placeholder: 'postgres://user:password@db.example.com:5432/vision',
      description: 'The PostgreSQL database the visits are kept in; its tables are made on first use',
    },
    {
      displayName: 'Media Folder',
      name: 'mediaFolder',
      type: 'string',
      default: '',
      required: true,
      placeholder: 'e.g. /mnt/shared/vision-history',
      description: "Folder for the visits' face crops, snapshots and clips, the same on every n8n machine (a shared mount); it must be n8n's user's and writable by no one else",
    },
  ];
}
