/** "Less than 4MB": read as 4 MiB; an image (or the images of one request together) must stay below it. */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
/** Smallest face side accepted for comparing and adding, in pixels. */
export const MIN_FACE_SIDE = 120;
/** Largest face side accepted for comparing and adding, in pixels. */
export const MAX_FACE_SIDE = 280;
/** Range and default of max_results. */
export const MAX_RESULTS = { min: 1, max: 1000, default: 10 } as const;
