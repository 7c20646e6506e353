import type { ICredentialType } from 'n8n-workflow';
import { VisionStreamingApi } from '../../credentials/VisionStreamingApi.credentials';
import { CLOUD_CREDENTIAL_TYPE } from '../../nodes/common/transport';

/** The main package's credential under its own name, so that both packages can be installed in one n8n. */
export class VisionStreamingCloudApi extends VisionStreamingApi implements ICredentialType {
  override name = CLOUD_CREDENTIAL_TYPE;

  override displayName = 'Vision & Streaming API (Cloud)';

  override documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-vision-streaming-cloud';
}
