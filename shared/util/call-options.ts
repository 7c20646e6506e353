import { InputError } from '../errors';

/** The last argument of every client call. */
export interface CallOptions {
  /** Aborting stops the call, its retries and its backoff at once (ApiError code 'ABORTED'). */
  signal?: AbortSignal;
}

/** The caller's signal, checked to be one (a wrong type would otherwise be ignored silently). */
export function callSignal(options: CallOptions | undefined): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object') throw new InputError('invalid_input', 'options must be an object such as { signal }', { field: 'options', limit: '{ signal?: AbortSignal }' });
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InputError('invalid_input', 'signal must be an AbortSignal', { field: 'signal', limit: 'AbortSignal' });
  return signal;
}
