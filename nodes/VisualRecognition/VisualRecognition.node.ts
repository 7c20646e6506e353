import {
  NodeConnectionTypes,
  NodeOperationError,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { cancelSignal, visionClient } from '../common/clients';
import { errorJson, toNodeError } from '../common/errors';
import { imageLabels } from '../common/image-input';
import { IMAGE, SOURCE, TARGET, properties } from './description';
import { boxesImage } from './boxes';
import { OPERATIONS } from './operations';

/** Parameter names behind the core's field names, for error messages. */
const LABELS = {
  ...imageLabels([IMAGE, SOURCE, TARGET]),
  collectionId: 'Collection ID',
  faceId: 'Face ID',
  maxResults: 'Max Results',
  'source+target': 'Source Image and Target Image',
};

/** Visual Recognition API: detect humans and faces, compare faces, face collections. */
export class VisualRecognition implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Visual Recognition',
    name: 'visualRecognition',
    icon: { light: 'file:visualRecognition.svg', dark: 'file:visualRecognition.dark.svg' },
    group: ['transform'],
    version: 1,
    defaultVersion: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Detect humans and faces, compare faces, and search face collections',
    defaults: { name: 'Visual Recognition' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'visionStreamingApi', required: true }],
    properties,
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    const out: INodeExecutionData[] = [];
    const { client, state } = await visionClient(this);
    const signal = cancelSignal(this);
    try {
      for (let i = 0; i < items.length; i++) {
        try {
          const resource = this.getNodeParameter('resource', i) as string;
          const operation = this.getNodeParameter('operation', i) as string;
          const run = OPERATIONS[resource]?.[operation];
          if (!run) throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`, { itemIndex: i });
          const result = await run(this, client, i, signal);
          // The input's binaries stay on the item, so a later node can still post the photo.
          let binary = items[i].binary;
          const boxes = await boxesImage(this, i, result, signal);
          if (boxes) binary = { ...(binary ?? {}), [boxes.property]: boxes.data };
          out.push({ json: result.json, ...(binary ? { binary } : {}), pairedItem: { item: i } });
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
