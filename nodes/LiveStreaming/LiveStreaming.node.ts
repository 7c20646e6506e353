import {
  NodeConnectionTypes,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { streamingClient } from '../common/clients';
import { runPerItem } from '../common/per-item';
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
    version: 1,
    defaultVersion: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Create, list and delete live streaming rooms, and issue tickets to join them',
    defaults: { name: 'Live Streaming' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    properties,
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return runPerItem(this, await streamingClient(this), OPERATIONS, LABELS, async (json, i) => ({ json, pairedItem: { item: i } }));
  }
}
