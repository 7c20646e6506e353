import type { Dispatcher } from 'undici';
import { downloadImage, MAX_IMAGE_BYTES, resolveImage, type ImageInput } from '../../shared/image';
import { drawBoxesOnImage, type Box } from '../../shared/picture';

/**
 * The input image with boxes drawn on it (JPEG stays JPEG, PNG stays PNG). An image given as a
 * URL is downloaded once more for drawing, through the config node's dispatcher.
 */
export async function imageWithBoxes(image: ImageInput, boxes: readonly Box[], options: { signal?: AbortSignal; dispatcher?: Dispatcher } = {}): Promise<Buffer> {
  const resolved = resolveImage(image, 'image');
  const bytes =
    resolved.kind === 'bytes'
      ? resolved.bytes
      : (await downloadImage(resolved.url, 'image', { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 15_000 }, { signal: options.signal, dispatcher: options.dispatcher })).bytes;
  return drawBoxesOnImage(bytes, boxes);
}
