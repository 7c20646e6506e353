import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { downloadImage, MAX_IMAGE_BYTES } from '../../shared/vision';
import { drawBoxesOnImage } from '../../shared/picture';
import type { OperationResult } from './operations';

/** The "Image With Boxes" option: the operation's image with its boxes drawn, as n8n binary data. */
export async function boxesImage(ctx: IExecuteFunctions, i: number, result: OperationResult, signal?: AbortSignal): Promise<{ property: string; data: IBinaryData } | undefined> {
  const options = ctx.getNodeParameter('options', i, {}) as { drawBoxes?: boolean; boxesProperty?: string };
  if (!options.drawBoxes || result.image === undefined || !result.boxes) return undefined;
  const bytes = typeof result.image === 'string'
    ? (await downloadImage(result.image, 'image', { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 15_000 }, { signal, operation: 'drawBoxes' })).bytes
    : result.image;
  const drawn = await drawBoxesOnImage(bytes, result.boxes);
  const png = drawn[0] === 0x89;
  const property = options.boxesProperty?.trim() || 'boxes';
  return { property, data: await ctx.helpers.prepareBinaryData(drawn, png ? 'boxes.png' : 'boxes.jpg', png ? 'image/png' : 'image/jpeg') };
}
