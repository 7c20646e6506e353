import type { HttpTransport } from './transport';

/**
 * An exchange over the runtime's own `fetch`: no package, no proxy settings. For hosts that give a
 * package no request helper at some point (n8n's credential tester may call a credential's
 * token request with none) and allow no dependency.
 */
export const fetchTransport: HttpTransport = async (req) => {
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const response = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : new Uint8Array(req.body),
    signal: req.signal ? AbortSignal.any([req.signal, deadline]) : deadline,
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: response.status, headers, body: await response.text() };
};
