/** Entry point `<package>/vision`: the Visual Recognition client, its result types, errors and tokens. */
export * from '../common';
export {
  VisionClient,
  type VisionClientOptions,
} from './vision-client';
export { VisionApi, type VisionApiParts, type ImageDownloader } from './vision-api';
export * from './types';
export { downloadImage, type DownloadLimits, type DownloadOptions } from '../image/download';
export { MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, type ImageMime } from '../image/limits';
export type { ImageInput } from '../image/input';
