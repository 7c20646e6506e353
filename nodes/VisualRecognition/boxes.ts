import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { imageWithBoxes } from '../../shared/picture/boxes';
import type { OperationResult } from './operations';

/** The "Image With Boxes" option: the operation's image with its boxes drawn, as n8n binary data. */
export async function boxesImage(ctx: IExecuteFunctions, i: number, result: OperationResult, signal?: AbortSignal): Promise<{ property: string; data: IBinaryData } | undefined> {
  const options = ctx.getNodeParameter('options', i, {}) as { drawBoxes?: boolean; boxesProperty?: string };
  if (!options.drawBoxes || result.image === undefined || !result.boxes) return undefined;
  const drawn = await imageWithBoxes(result.image, result.boxes, { signal });
  const png = drawn[0] === 0x89;
  const property = options.boxesProperty?.trim() || 'boxes';
  return { property, data: await ctx.helpers.prepareBinaryData(drawn, png ? 'boxes.png' : 'boxes.jpg', png ? 'image/png' : 'image/jpeg') };
}
