import { InputError } from '../errors';
import { imageDimensions } from './dimensions';
import { IMAGE_LIMIT_TEXT, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, PIXEL_LIMIT_TEXT, type ImageMime } from './limits';
import { sniffImage } from './sniff';

/** An image as callers hold it: bytes, a base64 string, a data URL, or an http(s) URL. */
export type ImageInput = Buffer | Uint8Array | ArrayBuffer | string;

/** An image ready to send: its bytes and type, or a URL the service fetches itself. */
export type ResolvedImage = { kind: 'bytes'; bytes: Buffer; mime: ImageMime } | { kind: 'url'; url: string };

/** Longest URL accepted; far beyond any real image address, short enough to keep errors readable. */
const MAX_URL_LENGTH = 4096;

/**
 * Checks an image input and turns it into bytes or a URL, before anything is sent. `field` names
 * the parameter in errors ('image', 'source', 'target').
 */
export function resolveImage(input: unknown, field: string): ResolvedImage {
  if (typeof input === 'string') return resolveString(input, field);
  if (input instanceof Uint8Array) return checkImageBytes(Buffer.from(input.buffer, input.byteOffset, input.byteLength), field);
  if (input instanceof ArrayBuffer) return checkImageBytes(Buffer.from(input), field);
  const got = input === null ? 'null' : typeof input;
  throw new InputError('invalid_input', `${field} must be a Buffer, Uint8Array, base64 string, data URL or http(s) URL (got ${got})`, { field, limit: 'JPEG or PNG image' });
}

/** Validates image bytes: not empty, under the size limit, JPEG or PNG, not cut short, within the pixel limit. */
export function checkImageBytes(bytes: Buffer, field: string): ResolvedImage & { kind: 'bytes' } {
  if (bytes.length === 0) throw new InputError('invalid_input', `${field} is empty (0 bytes)`, { field, limit: 'non-empty JPEG or PNG' });
  if (bytes.length >= MAX_IMAGE_BYTES) {
    throw new InputError('invalid_input', `${field} is ${bytes.length} bytes; the service takes images ${IMAGE_LIMIT_TEXT}`, { field, limit: IMAGE_LIMIT_TEXT });
  }
  const sniffed = sniffImage(bytes);
  if (!sniffed) {
    const other = otherFormat(bytes);
    const what = other ? `a ${other} image` : 'not a JPEG or PNG image';
    throw new InputError('invalid_input', `${field} is ${what}; the service reads only JPEG or PNG`, { field, limit: 'JPEG or PNG' });
  }
  if (!sniffed.complete) {
    const marker = sniffed.mime === 'image/jpeg' ? 'JPEG end-of-image marker' : 'PNG IEND chunk';
    throw new InputError('invalid_input', `${field} looks truncated: no ${marker}`, { field, limit: 'complete JPEG or PNG' });
  }
  const size = imageDimensions(bytes, sniffed.mime);
  if (!size || size.width === 0 || size.height === 0) {
    throw new InputError('invalid_input', `${field} has no readable ${sniffed.mime === 'image/png' ? 'PNG header (IHDR)' : 'JPEG frame header (SOF)'} giving its width and height`, { field, limit: 'JPEG or PNG' });
  }
  if (size.width * size.height > MAX_IMAGE_PIXELS) {
    throw new InputError('invalid_input', `${field} is ${size.width}x${size.height} (${size.width * size.height} pixels); images are limited to ${PIXEL_LIMIT_TEXT}`, { field, limit: PIXEL_LIMIT_TEXT });
  }
  return { kind: 'bytes', bytes, mime: sniffed.mime };
}

function resolveString(raw: string, field: string): ResolvedImage {
  const text = raw.trim();
  if (text === '') throw new InputError('invalid_input', `${field} is an empty string`, { field, limit: 'non-empty base64, data URL or http(s) URL' });
  if (/^https?:\/\//i.test(text)) return { kind: 'url', url: checkImageUrl(text, field) };
  if (/^data:/i.test(text)) return resolveDataUrl(text, field);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text);
  if (scheme) {
    throw new InputError('invalid_input', `${field} URL scheme "${scheme[1]}:" is not supported; use http or https`, { field, limit: 'http(s) URL' });
  }
  return checkImageBytes(decodeBase64(text, field), field);
}

/**
 * Checks an image URL: http(s), a host, a sane length, and no user name or password (which would
 * travel to the service and into logs). Errors never repeat the URL.
 */
export function checkImageUrl(text: string, field: string): string {
  if (text.length > MAX_URL_LENGTH) throw new InputError('invalid_input', `${field} URL is longer than ${MAX_URL_LENGTH} characters`, { field, limit: `${MAX_URL_LENGTH} characters` });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError('invalid_input', `${field} is not a valid http(s) URL`, { field, limit: 'http(s) URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InputError('invalid_input', `${field} must be an http(s) URL`, { field, limit: 'http(s) URL' });
  if (url.hostname === '') throw new InputError('invalid_input', `${field} URL has no host`, { field, limit: 'http(s) URL' });
  if (url.username !== '' || url.password !== '') {
    throw new InputError('invalid_input', `${field} URL must not carry a user name or password (user:pass@host); use a signed URL instead`, { field, limit: 'http(s) URL without credentials' });
  }
  return url.href;
}

function resolveDataUrl(text: string, field: string): ResolvedImage {
  const match = /^data:([^,]*),(.*)$/is.exec(text);
  if (!match) throw new InputError('invalid_input', `${field} is not a valid data URL (no comma)`, { field, limit: 'data:image/jpeg;base64,... or data:image/png;base64,...' });
  const params = match[1].split(';').map((p) => p.trim().toLowerCase());
  const mime = params[0];
  if (mime !== 'image/jpeg' && mime !== 'image/jpg' && mime !== 'image/png') {
    throw new InputError('invalid_input', `${field} data URL has type "${mime || 'none'}"; only image/jpeg and image/png are accepted`, { field, limit: 'image/jpeg or image/png' });
  }
  if (!params.includes('base64')) {
    throw new InputError('invalid_input', `${field} data URL must be base64-encoded (";base64,")`, { field, limit: 'base64 data URL' });
  }
  return checkImageBytes(decodeBase64(match[2], field), field);
}

/** Strict decoding: Buffer.from(_, 'base64') silently skips bad characters, which would hide garbage. */
function decodeBase64(text: string, field: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  const estimated = Math.floor((compact.length * 3) / 4);
  if (estimated - 2 >= MAX_IMAGE_BYTES) {
    throw new InputError('invalid_input', `${field} decodes to about ${estimated} bytes; the service takes images ${IMAGE_LIMIT_TEXT}`, { field, limit: IMAGE_LIMIT_TEXT });
  }
  const standard = /^[A-Za-z0-9+/]*={0,2}$/.test(compact);
  const urlSafe = !standard && /^[A-Za-z0-9_-]*={0,2}$/.test(compact);
  if ((!standard && !urlSafe) || compact.length % 4 === 1) {
    throw new InputError('invalid_input', `${field} is neither a URL nor valid base64`, { field, limit: 'base64, data URL or http(s) URL' });
  }
  return Buffer.from(compact, urlSafe ? 'base64url' : 'base64');
}

/** Names common non-supported formats so the error says what the file actually is. */
function otherFormat(bytes: Buffer): string | undefined {
  const head = bytes.toString('latin1', 0, Math.min(bytes.length, 12));
  if (head.startsWith('GIF8')) return 'GIF';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'WebP';
  if (head.startsWith('BM')) return 'BMP';
  if (head.startsWith('%PDF')) return 'PDF';
  if (head.startsWith('II*\u0000') || head.startsWith('MM\u0000*')) return 'TIFF';
  return undefined;
}
