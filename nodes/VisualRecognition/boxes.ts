import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { imageWithBoxes } from '../../shared/picture/boxes';
import { isLocalServiceUrl } from '../../shared/image/address-guard';
import { credentialTypeOf } from '../common/transport';
import type { OperationResult } from './operations';

/** The "Image With Boxes" option: the operation's image with its boxes drawn, as n8n binary data. */
export async function boxesImage(ctx: IExecuteFunctions, i: number, result: OperationResult, signal?: AbortSignal): Promise<{ property: string; data: IBinaryData } | undefined> {
  const options = ctx.getNodeParameter('options', i, {}) as { drawBoxes?: boolean; boxesProperty?: string };
  if (!options.drawBoxes || result.image === undefined || !result.boxes) return undefined;
  // A URL image on this machine or a private network is drawn only when the service is on this machine too.
  const credentials = await ctx.getCredentials(credentialTypeOf(ctx));
  const allowPrivateImageUrls = isLocalServiceUrl(typeof credentials.visionUrl === 'string' ? credentials.visionUrl : undefined) || undefined;
  const drawn = await imageWithBoxes(result.image, result.boxes, { signal, allowPrivateImageUrls });
  const png = drawn[0] === 0x89;
  const property = options.boxesProperty?.trim() || 'boxes';
  return { property, data: await ctx.helpers.prepareBinaryData(drawn, png ? 'boxes.png' : 'boxes.jpg', png ? 'image/png' : 'image/jpeg') };
}
