import { InputError } from '../errors';

/** A service base address split the way the dispatcher wants it. */
export interface ServiceBase {
  /** scheme://host[:port], the key of the connection pool. */
  origin: string;
  /** Path prefix without a trailing slash and without a trailing `/v1` ('' for most services). */
  prefix: string;
}

/**
 * Parses a base address given by a user. The vendor documents its bases both as
 * `https://host` and `https://host/v1` while the spec writes `{base}/v1/...`, so a trailing `/v1`
 * is dropped and every path this library sends starts with `/v1/`. A base with credentials,
 * query or fragment is refused: those would end up in logs.
 */
export function parseServiceBase(value: unknown, field: string): ServiceBase {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InputError('invalid_input', `${field} is required: an http(s) base address such as https://host`, { field, limit: 'non-empty http(s) URL' });
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InputError('invalid_input', `${field} is not a valid URL`, { field, limit: 'http(s) URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError('invalid_input', `${field} must use http or https (got ${url.protocol})`, { field, limit: 'http(s) URL' });
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new InputError('invalid_input', `${field} must not carry credentials, a query or a fragment`, { field, limit: 'scheme://host[:port][/path]' });
  }
  let prefix = url.pathname.replace(/\/+$/, '');
  if (prefix.endsWith('/v1/token')) prefix = prefix.slice(0, -'/v1/token'.length);
  if (prefix.endsWith('/v1')) prefix = prefix.slice(0, -'/v1'.length);
  return { origin: url.origin, prefix };
}
