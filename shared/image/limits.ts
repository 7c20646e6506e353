/**
 * The spec says images must be "less than 4MB". We read MB as MiB (4 * 1024 * 1024 bytes) and
 * "less than" strictly: an image of exactly 4194304 bytes is refused. The same bound applies to
 * the sum of the images of one comparison or face addition.
 */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;

/** Words used in errors about the image size limit. */
export const IMAGE_LIMIT_TEXT = `less than 4 MiB (${MAX_IMAGE_BYTES} bytes)`;

/**
 * Largest image, in pixels (width x height as its header declares), that the package decodes or
 * sends: 25 megapixels (a 6000x4000 photo fits). The bytes limit alone lets a 746 KB PNG of
 * 16000x16000 through, which takes a gigabyte to decode.
 */
export const MAX_IMAGE_PIXELS = 25_000_000;

/** Words used in errors about the pixel limit. */
export const PIXEL_LIMIT_TEXT = `at most ${MAX_IMAGE_PIXELS} pixels (25 megapixels)`;

/** How long fetching an image URL may take (a mixed comparison's URL image, an image to draw boxes on). */
export const IMAGE_DOWNLOAD_TIMEOUT_MS = 15_000;

/** The two formats the service reads. */
export type ImageMime = 'image/jpeg' | 'image/png';
