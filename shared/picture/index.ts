/** Pictures: JPEG snapshots, crops and boxes (sharp, native or wasm), and grey thumbnails for the change gate and the tracker's face looks. */
export { grayThumbnail, rgbLuma, thumbnailDifference } from './gray';
export { encodeJpeg, cropToJpeg, drawBoxes, drawBoxesOnImage, scaleJpeg, type JpegOptions } from './jpeg';
export type { Box } from './overlay';
export { pictureBackend } from './sharp';
export { toRaw, toRgba, i420Layout, type RawPixels } from './convert';
