import { InputError } from '../../shared/errors';
import type { ImageInput } from '../../shared/image';

/**
 * An image as it arrives in a message: a Buffer, a Buffer that went through JSON
 * ({type:'Buffer', data:[...]}, as after a link to another Node-RED instance or a file save),
 * base64, a data URL or an http(s) URL. Checks of size and format stay in the core.
 */
export function imageFromValue(value: unknown, where: string, field: string): ImageInput {
  if (value === undefined || value === null) {
    throw new InputError('invalid_input', `${where} holds no image (expected a Buffer, base64, data URL or http(s) URL)`, { field, limit: 'JPEG or PNG image' });
  }
  if (isSerializedBuffer(value)) return Buffer.from(value.data);
  if (Buffer.isBuffer(value) || typeof value === 'string' || value instanceof Uint8Array || value instanceof ArrayBuffer) return value;
  throw new InputError('invalid_input', `${where} is ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}, not an image (expected a Buffer, base64, data URL or http(s) URL)`, { field, limit: 'JPEG or PNG image' });
}

function isSerializedBuffer(value: unknown): value is { type: 'Buffer'; data: number[] } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { type?: unknown; data?: unknown };
  return v.type === 'Buffer' && Array.isArray(v.data) && v.data.every((b) => Number.isInteger(b) && b >= 0 && b <= 255);
}
