import {
  NodeConnectionTypes,
  NodeOperationError,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { cancelSignal, streamingClient } from '../common/clients';
import { errorJson, toNodeError } from '../common/errors';
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
    credentials: [{ name: 'visionStreamingApi', required: true }],
    properties,
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    const out: INodeExecutionData[] = [];
    const { client, state } = await streamingClient(this);
    const signal = cancelSignal(this);
    try {
      for (let i = 0; i < items.length; i++) {
        try {
          const resource = this.getNodeParameter('resource', i) as string;
          const operation = this.getNodeParameter('operation', i) as string;
          const run = OPERATIONS[resource]?.[operation];
          if (!run) throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`, { itemIndex: i });
          out.push({ json: await run(this, client, i, signal), pairedItem: { item: i } });
        } catch (err) {
          const error = toNodeError(this.getNode(), err, i, LABELS, state);
          state.tokenFailure = undefined;
          if (!this.continueOnFail()) throw error;
          out.push({ json: errorJson(error), pairedItem: { item: i } });
        }
      }
    } finally {
      await client.close();
    }
    return [out];
  }
}
