import type { Dispatcher } from 'undici';
import { downloadImage, MAX_IMAGE_BYTES, resolveImage, type ImageInput } from '../image';
import { IMAGE_DOWNLOAD_TIMEOUT_MS } from '../image/limits';
import { drawBoxesOnImage } from './jpeg';
import type { Box } from './overlay';

/** How imageWithBoxes downloads a URL image. */
export interface BoxesImageOptions {
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
  /** Download from loopback, link-local and private addresses too (default: VS_ALLOW_PRIVATE_IMAGE_URLS; hosts set it when their service address is on this machine). */
  allowPrivateImageUrls?: boolean;
}

/**
 * An operation's input image with its boxes drawn (JPEG stays JPEG, PNG stays PNG). An image given
 * as a URL is downloaded once more for drawing, within the API's image limits and through the
 * caller's dispatcher.
 */
export async function imageWithBoxes(image: ImageInput, boxes: readonly Box[], options: BoxesImageOptions = {}): Promise<Buffer> {
  const resolved = resolveImage(image, 'image');
  const bytes =
    resolved.kind === 'bytes'
      ? resolved.bytes
      : (await downloadImage(resolved.url, 'image', { maxBytes: MAX_IMAGE_BYTES, timeoutMs: IMAGE_DOWNLOAD_TIMEOUT_MS }, { signal: options.signal, dispatcher: options.dispatcher, operation: 'drawBoxes', allowPrivateAddresses: options.allowPrivateImageUrls })).bytes;
  return drawBoxesOnImage(bytes, boxes);
}
