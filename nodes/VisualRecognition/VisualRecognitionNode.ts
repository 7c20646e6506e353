import {
  NodeConnectionTypes,
  type IExecuteFunctions,
  type ILoadOptionsFunctions,
  type INodeExecutionData,
  type INodeListSearchResult,
  type INodeType,
  type INodeTypeDescription,
} from 'n8n-workflow';
import { listSearch } from '../common/locators';
import { CREDENTIAL_TYPE } from '../common/transport';
import { properties } from './description';
import { executeVisualRecognition } from './execute';

/**
 * Visual Recognition API: detect humans and faces, compare faces, face collections. Without box
 * drawing, which needs an image library: the main package's node adds it, the n8n Cloud package's
 * node is this one with its own credential.
 */
export class VisualRecognitionNode implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Visual Recognition',
    name: 'visualRecognition',
    icon: { light: 'file:visualRecognition.svg', dark: 'file:visualRecognition.dark.svg' },
    group: ['transform'],
    // 2: rooms and collections picked from a list (resource locators); 1 keeps plain text IDs.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Detect humans and faces, compare faces, and search face collections',
    defaults: { name: 'Visual Recognition' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    properties,
  };

  // Typed wide, so that the main package's node can list more than the base's lists.
  methods: { listSearch: Record<string, (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>> } = { listSearch };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return executeVisualRecognition(this);
  }
}
