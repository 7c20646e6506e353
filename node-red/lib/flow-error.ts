import { InputError, isClientError } from '../../shared/errors';

/** The fields of a failure that may be shown anywhere: no secret, token or key is among them. */
export type SafeErrorFields = Record<string, unknown> & { name: string; message: string; code: string };

/** Safe fields of any failure: a typed error's own JSON view, or name and message of anything else. */
export function safeErrorFields(err: unknown): SafeErrorFields {
  if (isClientError(err)) {
    const json = err.toJSON();
    const code = typeof json.code === 'string' ? json.code : err instanceof InputError ? 'invalid_input' : 'error';
    return dropUndefined({ ...json, name: err.name, message: err.message, code });
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message, code: 'error' };
}

/**
 * The error handed to done(). Node-RED builds the Catch node's msg.error from message, code, stack
 * and cause only; cause carries the safe fields (status, retryable, field, limit ...).
 */
export function flowError(err: unknown): Error & { code: string; cause: SafeErrorFields } {
  const fields = safeErrorFields(err);
  const out = new Error(fields.message, { cause: fields }) as Error & { code: string; cause: SafeErrorFields };
  out.name = fields.name;
  out.code = fields.code;
  return out;
}

/** A status text for a failure: short, and only the code or the field. */
export function failureText(err: unknown): string {
  const f = safeErrorFields(err);
  if (f.code === 'invalid_input' && typeof f.field === 'string') return `invalid ${f.field}`;
  if (typeof f.status === 'number') return `${f.code} (HTTP ${f.status})`;
  return f.code;
}

function dropUndefined<T extends Record<string, unknown>>(obj: T): T {
  for (const key of Object.keys(obj)) if (obj[key] === undefined) delete obj[key];
  return obj;
}
