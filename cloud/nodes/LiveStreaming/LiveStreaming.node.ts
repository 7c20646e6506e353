import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { CLOUD_CREDENTIAL_TYPE } from '../../../nodes/common/transport';
import { properties } from '../../../nodes/LiveStreaming/description';
import { LiveStreaming as MainLiveStreaming } from '../../../nodes/LiveStreaming/LiveStreaming.node';

/**
 * Live Streaming for n8n Cloud: the main package's node (its execute) with this package's
 * credential. n8n's tooling reads each package's node header from the node file itself.
 */
export class LiveStreaming extends MainLiveStreaming implements INodeType {
  override description: INodeTypeDescription = {
    displayName: 'Live Streaming',
    name: 'liveStreaming',
    icon: { light: 'file:liveStreaming.svg', dark: 'file:liveStreaming.dark.svg' },
    group: ['transform'],
    // 2: rooms and collections picked from a list (resource locators); 1 keeps plain text IDs.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Create, list and delete live streaming rooms, and issue tickets to join them',
    defaults: { name: 'Live Streaming' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CLOUD_CREDENTIAL_TYPE, required: true }],
    properties,
  };
}
