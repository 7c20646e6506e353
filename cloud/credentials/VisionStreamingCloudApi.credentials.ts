import type { ICredentialType } from 'n8n-workflow';
import { VisionStreamingApi } from '../../credentials/VisionStreamingApi.credentials';
import { CLOUD_CREDENTIAL_TYPE } from '../../nodes/common/transport';

/** The main package's credential under its own name, so that both packages can be installed in one n8n. */
export class VisionStreamingCloudApi extends VisionStreamingApi implements ICredentialType {
  override name = CLOUD_CREDENTIAL_TYPE;

  override displayName = 'Vision & Streaming Cloud API';

  // n8n's tooling reads each credential file's icon from the file itself.
  override icon = { light: 'file:visionStreaming.svg', dark: 'file:visionStreaming.dark.svg' } as const;

  override documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-vision-streaming-cloud';
}
