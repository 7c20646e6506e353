import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** How one image parameter is named: the prefix of its three node parameters and its label. */
export interface ImageParam {
  /** 'image', 'source' or 'target': also the core's field name in errors. */
  name: string;
  label: string;
  defaultBinary: string;
}

/** The three parameters of one image: where it comes from, the binary property, the URL. */
export function imageProperties(param: ImageParam, displayOptions: IDisplayOptions): INodeProperties[] {
  const mode = `${param.name}InputMode`;
  return [
    {
      displayName: `${param.label} Input`,
      name: mode,
      type: 'options',
      options: [
        { name: 'Binary File', value: 'binary', description: 'A JPEG or PNG in a binary property of the input item' },
        { name: 'URL', value: 'url', description: 'An http(s) address the service downloads itself' },
      ],
      default: 'binary',
      displayOptions,
    },
    {
      displayName: `${param.label} Binary Property`,
      name: `${param.name}BinaryProperty`,
      type: 'string',
      default: param.defaultBinary,
      required: true,
      description: 'Name of the binary property holding the image (JPEG or PNG, less than 4 MiB)',
      displayOptions: withMode(displayOptions, mode, 'binary'),
    },
    {
      displayName: `${param.label} URL`,
      name: `${param.name}Url`,
      type: 'string',
      default: '',
      required: true,
      placeholder: 'https://example.com/photo.jpg',
      description: 'Address of a JPEG or PNG image (less than 4 MiB)',
      displayOptions: withMode(displayOptions, mode, 'url'),
    },
  ];
}

/** Labels of the image parameters, keyed by the core's field names, for error messages. */
export function imageLabels(params: ImageParam[]): Record<string, string> {
  return Object.fromEntries(params.map((p) => [p.name, `${p.label} Binary Property / ${p.label} URL`]));
}

/** The image of item `i`: its bytes (read through n8n's binary data service) or its URL. */
export async function readImage(ctx: IExecuteFunctions, i: number, param: ImageParam): Promise<Buffer | string> {
  const mode = ctx.getNodeParameter(`${param.name}InputMode`, i) as string;
  if (mode === 'url') return String(ctx.getNodeParameter(`${param.name}Url`, i, '') ?? '').trim();
  const property = ctx.getNodeParameter(`${param.name}BinaryProperty`, i) as string;
  ctx.helpers.assertBinaryData(i, property);
  return await ctx.helpers.getBinaryDataBuffer(i, property);
}

function withMode(displayOptions: IDisplayOptions, mode: string, value: string): IDisplayOptions {
  return { ...displayOptions, show: { ...(displayOptions.show ?? {}), [mode]: [value] } };
}
