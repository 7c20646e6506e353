import { InputError } from '../errors';

/** Longest identifier accepted; the service's ids are 36-character UUIDs. */
const MAX_ID_LENGTH = 256;

/**
 * Checks an id taken from a user and returns it encoded for a path segment. A `/` (or a dot
 * segment) would address a different endpoint, so it is refused rather than escaped.
 */
export function pathId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InputError('invalid_input', `${field} is required (non-empty string)`, { field, limit: 'non-empty string' });
  }
  if (value.length > MAX_ID_LENGTH) {
    throw new InputError('invalid_input', `${field} is longer than ${MAX_ID_LENGTH} characters`, { field, limit: `${MAX_ID_LENGTH} characters` });
  }
  if (/[/\\]/.test(value) || value === '.' || value === '..') {
    throw new InputError('invalid_input', `${field} must not contain "/" or "\\" or be a dot segment`, { field, limit: 'a single path segment' });
  }
  if ([...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    throw new InputError('invalid_input', `${field} must not contain control characters`, { field, limit: 'printable characters' });
  }
  return encodeURIComponent(value);
}

/** max_results: an integer from 1 to 1000 (spec rule 1). */
export function checkMaxResults(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1000) {
    const got = typeof value === 'number' ? String(value) : `${typeof value} ${JSON.stringify(value)}`;
    throw new InputError('invalid_input', `maxResults must be an integer from 1 to 1000 (got ${got})`, { field: 'maxResults', limit: 'integer 1..1000' });
  }
  return value;
}
