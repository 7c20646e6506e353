import type { IAllExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { isClientError, type ClientError } from '../../shared/errors';
import type { HttpTransport, TransportRequest, TransportResponse } from '../../shared/http/transport';

/** Name of the credential type every node of the package uses. */
export const CREDENTIAL_TYPE = 'visionStreamingApi';

/** The n8n Cloud package's credential type: the same fields, another name, so both packages can be installed side by side. */
export const CLOUD_CREDENTIAL_TYPE = 'visionStreamingCloudApi';

/** The credential type the running node was given: the main package's or the Cloud package's. */
export function credentialTypeOf(context: { getNode(): { credentials?: Record<string, unknown> } }): string {
  const given = Object.keys(context.getNode().credentials ?? {});
  return given.includes(CLOUD_CREDENTIAL_TYPE) && !given.includes(CREDENTIAL_TYPE) ? CLOUD_CREDENTIAL_TYPE : CREDENTIAL_TYPE;
}

/** What a node context must offer to send authorised requests. */
export type RequestContext = IAllExecuteFunctions;

/** Remembers why the token could not be had, so a node can report that instead of a transport failure. */
export interface TransportState {
  tokenFailure?: ClientError;
}

/**
 * The core's transport over n8n's `httpRequestWithAuthentication`: n8n runs the credential's
 * `preAuthentication` (token fetched once, stored with the credential), adds the headers of its
 * `authenticate`, and on a 401 renews the token and sends the request again. Every other status
 * comes back as a response, so the core keeps its own retries and error mapping. Bodies are
 * Buffers or strings (never streams), so n8n can send them a second time after a renewal.
 */
export function n8nTransport(context: RequestContext, state: TransportState = {}, credentialType = CREDENTIAL_TYPE): HttpTransport {
  return async (req) => {
    const options: IHttpRequestOptions = {
      ...requestOptions(req),
      // A 401 must throw: that is what makes n8n renew the token and send again.
      ignoreHttpStatusErrors: { ignore: true, except: [401] },
    };
    try {
      const response = (await context.helpers.httpRequestWithAuthentication.call(context, credentialType, options)) as FullResponse;
      return { status: response.statusCode, headers: flatHeaders(response.headers), body: bodyText(response.body) };
    } catch (err) {
      const tokenFailure = findClientError(err);
      if (tokenFailure) {
        // preAuthentication failed (bad client id/secret, auth service down): the core's own error says why.
        state.tokenFailure = tokenFailure;
        throw tokenFailure;
      }
      const refused = refusedResponse(err);
      if (refused) return refused;
      // No response: hand the core the network code only, never the request (it holds the headers).
      throw networkFailure(err);
    }
  };
}

/**
 * The core's transport over n8n's plain `httpRequest` (no credential): for the token request of
 * the credential itself. Every status comes back as a response; no response throws the network code.
 */
export function plainTransport(helpers: { httpRequest(options: IHttpRequestOptions): Promise<unknown> }): HttpTransport {
  return async (req) => {
    try {
      const response = (await helpers.httpRequest({ ...requestOptions(req), ignoreHttpStatusErrors: true })) as FullResponse;
      return { status: response.statusCode, headers: flatHeaders(response.headers), body: bodyText(response.body) };
    } catch (err) {
      throw networkFailure(err);
    }
  };
}

function requestOptions(req: TransportRequest): IHttpRequestOptions {
  return {
    method: req.method as IHttpRequestMethods,
    url: req.url,
    headers: { ...req.headers },
    body: req.body,
    timeout: req.timeoutMs,
    abortSignal: req.signal,
    encoding: 'arraybuffer',
    returnFullResponse: true,
  };
}

interface FullResponse {
  body: unknown;
  headers: Record<string, unknown>;
  statusCode: number;
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  return JSON.stringify(body);
}

function flatHeaders(headers: Record<string, unknown> | undefined): TransportResponse['headers'] {
  const out: TransportResponse['headers'] = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string' || Array.isArray(value)) out[key.toLowerCase()] = value as string | string[];
    else if (typeof value === 'number') out[key.toLowerCase()] = String(value);
  }
  return out;
}

/** The 401 that remained after n8n renewed the token, as a response the core maps itself. */
function refusedResponse(err: unknown): TransportResponse | undefined {
  const response = findResponse(err);
  if (!response || response.status !== 401) return undefined;
  return { status: 401, headers: flatHeaders(response.headers), body: bodyText(response.data) };
}

function findResponse(err: unknown): { status: number; headers?: Record<string, unknown>; data?: unknown } | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const response = (current as { response?: unknown }).response;
    if (response && typeof response === 'object' && typeof (response as { status?: unknown }).status === 'number') {
      return response as { status: number; headers?: Record<string, unknown>; data?: unknown };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function findClientError(err: unknown): ClientError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    if (isClientError(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function networkFailure(err: unknown): Error {
  let code: string | undefined;
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const c = (current as { code?: unknown }).code;
    if (typeof c === 'string' && /^[A-Z_]+$/.test(c)) {
      code = c;
      break;
    }
    current = (current as { cause?: unknown }).cause;
  }
  const text = err instanceof Error ? err.message.slice(0, 200) : '';
  const failure = new Error(text || (code ? `request failed (${code})` : 'request failed without a response')) as Error & { code?: string };
  if (code) failure.code = code;
  return failure;
}
