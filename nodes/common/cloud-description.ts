import type { INodeProperties } from 'n8n-workflow';

/** Visual Recognition's parameters without "Options" (Image With Boxes): drawing needs an image library, which the n8n Cloud package may not have. */
export function withoutBoxOptions(properties: INodeProperties[]): INodeProperties[] {
  return properties.filter((p) => p.name !== 'options');
}
