/** Image input: bytes, base64, data URL or http(s) URL; JPEG/PNG sniffing; size limits. */
export { resolveImage, checkImageBytes, type ImageInput, type ResolvedImage } from './input';
export { sniffImage, type Sniffed } from './sniff';
export { downloadImage, type DownloadLimits, type DownloadOptions } from './download';
export { MAX_IMAGE_BYTES, IMAGE_LIMIT_TEXT, MAX_IMAGE_PIXELS, PIXEL_LIMIT_TEXT, type ImageMime } from './limits';
export { imageDimensions, type Dimensions } from './dimensions';
export { isPrivateAddress, isLocalServiceUrl, ALLOW_PRIVATE_ENV } from './address-guard';
