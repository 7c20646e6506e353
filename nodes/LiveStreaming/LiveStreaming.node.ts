import {
  NodeConnectionTypes,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { streamingClient } from '../common/clients';
import { runPerItem } from '../common/per-item';
import { listSearch } from '../common/locators';
import { CREDENTIAL_TYPE } from '../common/transport';
import { properties } from './description';
import { OPERATIONS } from './operations';

/** Parameter names behind the core's field names, for error messages. */
const LABELS = { roomId: 'Room ID', state: 'State', direction: 'Direction' };

/** Live Streaming API: rooms and tickets. */
export class LiveStreaming implements INodeType {
  description: INodeTypeDescription = {
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
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    properties,
  };

  methods = { listSearch };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return runPerItem(this, await streamingClient(this), OPERATIONS, LABELS, async (json, i) => ({ json, pairedItem: { item: i } }));
  }
}
