import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { cloudDescription } from '../../../nodes/common/cloud-description';
import { LiveStreaming as MainLiveStreaming } from '../../../nodes/LiveStreaming/LiveStreaming.node';

/** Live Streaming for n8n Cloud: the main package's node with the Cloud package's credential. */
export class LiveStreaming extends MainLiveStreaming implements INodeType {
  override description: INodeTypeDescription = cloudDescription(new MainLiveStreaming().description);
}
