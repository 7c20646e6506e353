import { InputError } from '../../shared/errors';

/**
 * Face ids to names, from an object or its JSON text (an editor field or msg.payload); `what` names
 * where it came from in the error, e.g. 'labels' or 'import-labels: msg.payload'.
 */
export function labelsFrom(value: unknown, what: string): Record<string, string> {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new InputError('invalid_input', `${what} must be a JSON object of face ids to names, e.g. {"<face_id>": "Alice"}`, { field: 'labels', limit: 'JSON object' });
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Buffer.isBuffer(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new InputError('invalid_input', `${what} must be an object of face ids to names`, { field: 'labels', limit: '{ [face_id]: string }' });
  }
  return parsed as Record<string, string>;
}
