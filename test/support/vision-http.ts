import { request } from 'undici';

/**
 * Raw HTTP helpers for talking to the sandbox (or any server with the same API) in tests:
 * a token, the two vision headers, multipart bodies, and a small JSON-or-text response reader.
 */

/** Credentials of the sandbox's default client (public placeholders, documented in sandbox/README.md). */
export const SANDBOX_CLIENT = { id: 'sandbox-client', secret: 'sandbox-secret' } as const;

/** Vision scopes as the real token endpoint names them. */
export const VISION_SCOPE = 'ips.api.ricoh/v1/detect_faces ips.api.ricoh/v1/compare_faces ips.api.ricoh/v1/detect_humans';

/** A token response reduced to what requests need. */
export interface Token {
  accessToken: string;
  apiKey: string;
}

/** A response with its body read as JSON when it is JSON, else as text. */
export interface ReadResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
  text: string;
}

/** Requests a token with the client-credentials grant; throws when the endpoint does not answer 200. */
export async function fetchToken(baseUrl: string, scope = VISION_SCOPE, client: { id: string; secret: string } = SANDBOX_CLIENT): Promise<Token> {
  const res = await send(baseUrl + '/v1/token', {
    method: 'POST',
    headers: {
      authorization: 'Basic ' + Buffer.from(`${client.id}:${client.secret}`).toString('base64'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
  const body = res.json as { access_token: string; api_key: string };
  return { accessToken: body.access_token, apiKey: body.api_key };
}

/** The two headers every vision request carries. */
export function visionHeaders(token: Token): Record<string, string> {
  return { authorization: `Bearer ${token.accessToken}`, 'x-api-key': token.apiKey };
}

/** Serialises files (and text fields) as multipart/form-data with the platform's encoder. */
export async function multipart(parts: Record<string, Buffer | string>): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([new Uint8Array(value)], { type: value[0] === 0x89 ? 'image/png' : 'image/jpeg' }), `${name}.img`);
  }
  const encoded = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? '' };
}

/** Sends one request and reads the whole body. */
export async function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<ReadResponse> {
  const res = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers,
    body: options.body,
  });
  const text = await res.body.text();
  const type = String(res.headers['content-type'] ?? '');
  let json: unknown;
  if (type.includes('application/json') && text !== '') json = JSON.parse(text);
  return { status: res.statusCode, headers: res.headers, json, text };
}
