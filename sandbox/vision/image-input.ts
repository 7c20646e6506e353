import type { IncomingMessage } from 'node:http';
import { mediaType } from '../http/body';
import { VisionError, invalidParameter, tooLong, unsupportedMedia } from './errors';
import { MAX_IMAGE_BYTES, MAX_RESULTS } from './limits';
import type { ImageFetcher } from './url-fetch';

/** Images of one request by part/field name, plus max_results when the endpoint takes it. */
export interface ImageRequest {
  images: Record<string, Buffer>;
  maxResults: number;
}

/** Reads the one image of a detection endpoint: raw image/jpeg or image/png body, or JSON `{image: url}`. */
export async function readDetectionImage(req: IncomingMessage, body: Buffer, fetcher: ImageFetcher): Promise<Buffer> {
  const type = mediaType(req);
  if (type === 'image/jpeg' || type === 'image/png') {
    if (body.length >= MAX_IMAGE_BYTES) throw tooLong();
    if (body.length === 0) throw new VisionError(400, 'The request body holds no image.', 'invalid_image');
    return body;
  }
  if (type === 'application/json') {
    const json = parseJsonObject(body);
    return fetcher.get('image', json.image);
  }
  throw unsupportedMedia();
}

/**
 * Reads the images of a comparison or collection endpoint: multipart parts named `names`, or JSON fields
 * holding URLs. Their total size (the images' bytes, whatever the framing) must stay below 4 MB.
 * max_results is read when `withMaxResults`.
 */
export async function readNamedImages(
  req: IncomingMessage,
  body: Buffer,
  names: readonly string[],
  withMaxResults: boolean,
  fetcher: ImageFetcher,
): Promise<ImageRequest> {
  const type = mediaType(req);
  const images: Record<string, Buffer> = {};
  // Checked before any image is fetched or analysed, so a bad value costs nothing.
  let maxResults: number;
  if (type === 'multipart/form-data') {
    // The limit is on the images, not on the multipart framing around them: checked below.
    const form = await parseMultipart(req, body);
    maxResults = withMaxResults ? parseMaxResults(form.get('max_results') ?? undefined) : MAX_RESULTS.default;
    for (const name of names) {
      const part = form.get(name);
      if (part === null) throw invalidParameter(`The multipart part "${name}" is missing.`);
      if (typeof part === 'string') throw invalidParameter(`The multipart part "${name}" must be a file.`);
      images[name] = Buffer.from(await part.arrayBuffer());
    }
  } else if (type === 'application/json') {
    const json = parseJsonObject(body);
    maxResults = withMaxResults ? parseMaxResults(json.max_results) : MAX_RESULTS.default;
    for (const name of names) {
      if (json[name] === undefined) throw invalidParameter(`The field "${name}" is missing.`);
    }
    for (const name of names) images[name] = await fetcher.get(name, json[name]);
  } else {
    throw unsupportedMedia();
  }
  const total = Object.values(images).reduce((sum, image) => sum + image.length, 0);
  if (total >= MAX_IMAGE_BYTES) throw tooLong();
  for (const name of names) {
    if (images[name].length === 0) throw new VisionError(400, `The ${name} image is empty.`, 'invalid_image');
  }
  return { images, maxResults };
}

/** max_results: integer 1..1000, default 10; a JSON number or a decimal string (multipart fields are text). */
export function parseMaxResults(raw: unknown): number {
  if (raw === undefined || raw === null) return MAX_RESULTS.default;
  const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MAX_RESULTS.min || value > MAX_RESULTS.max) {
    throw invalidParameter(`max_results must be an integer from ${MAX_RESULTS.min} to ${MAX_RESULTS.max}.`);
  }
  return value;
}

/** Parses a JSON object body; anything else is a 400. */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalidParameter('The request body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParameter('The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

async function parseMultipart(req: IncomingMessage, body: Buffer): Promise<FormData> {
  try {
    // The platform's own multipart parser, fed through a Response.
    return await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  } catch {
    throw invalidParameter('The multipart/form-data body could not be parsed.');
  }
}
