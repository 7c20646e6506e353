import type { INodeTypeDescription } from 'n8n-workflow';
import { CLOUD_CREDENTIAL_TYPE } from './transport';

/** The n8n Cloud package's description: its own credential, and no "Image With Boxes" options, which only Visual Recognition has (drawing needs an image library). */
export function cloudDescription(description: INodeTypeDescription): INodeTypeDescription {
  return {
    ...description,
    credentials: [{ name: CLOUD_CREDENTIAL_TYPE, required: true }],
    properties: description.properties.filter((p) => p.name !== 'options'),
  };
}
