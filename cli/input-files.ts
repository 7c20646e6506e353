import { readFile } from 'node:fs/promises';
import { InputError } from '../shared/errors';
import type { ImageInput } from '../shared/image';

/**
 * An image given on the command line: an http(s) URL as it is (the service, or the core, fetches
 * it), else the bytes of the file at that path (the core checks them). `where` names it in errors:
 * a flag (`--image`) or an argument (`IMAGE`); `field` is the error's field.
 */
export async function readImageArgument(value: string, where: string, field: string = where.replace(/^--/, '')): Promise<ImageInput> {
  if (/^https?:\/\//i.test(value)) return value;
  try {
    return await readFile(value);
  } catch (err) {
    throw new InputError('invalid_input', `${where} ${value} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, { field, limit: 'a readable JPEG or PNG file, or an http(s) URL' });
  }
}

/** A labels file ({"face_id": "Name", ...}, or stream ids) given with --labels: its JSON object; an InputError naming --labels. */
export async function readLabelsFile(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError('invalid_input', `--labels ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, { field: 'labels', limit: 'a readable JSON file' });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new InputError('invalid_input', `--labels ${file} is not JSON`, { field: 'labels', limit: 'a JSON object {"face_id": "Name"}' });
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new InputError('invalid_input', `--labels ${file} must hold a JSON object {"face_id": "Name"}`, { field: 'labels', limit: 'a JSON object' });
  return doc as Record<string, string>;
}
