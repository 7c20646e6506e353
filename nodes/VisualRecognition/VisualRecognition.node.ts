import {
  NodeConnectionTypes,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { visionClient } from '../common/clients';
import { runPerItem } from '../common/per-item';
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
    return runPerItem(this, await visionClient(this), OPERATIONS, LABELS, async (result, i, signal) => {
      // The input's binaries stay on the item, so a later node can still post the photo.
      let binary = items[i].binary;
      const boxes = await boxesImage(this, i, result, signal);
      if (boxes) binary = { ...(binary ?? {}), [boxes.property]: boxes.data };
      return { json: result.json, ...(binary ? { binary } : {}), pairedItem: { item: i } };
    });
  }
}
