import type {
  IAuthenticateGeneric,
  ICredentialDataDecryptedObject,
  ICredentialTestRequest,
  ICredentialType,
  IDataObject,
  IHttpRequestHelper,
  INodeProperties,
} from 'n8n-workflow';
import { ALL_SCOPES } from '../shared/auth/scopes';
import { requestTokenOver } from '../shared/auth/token-request';
import { fetchTransport } from '../shared/http/fetch-transport';
import { hostSleep } from '../nodes/common/host-io';
import { plainTransport } from '../nodes/common/transport';
import { SERVICE_URLS } from '../shared/service-urls';

/** Addresses of the real services; users point them at the sandbox to work offline. */
export const DEFAULT_URLS = SERVICE_URLS;

/**
 * Client credentials of the Visual Recognition and Live Streaming APIs. The token comes through
 * n8n's expiring-credential mechanism: n8n calls `preAuthentication` when the hidden `accessToken`
 * is empty or a request got a 401, stores the result with the credential (so every execution and
 * every queue-mode worker reuses it), and the generic `authenticate` adds it to each request.
 */
export class VisionStreamingApi implements ICredentialType {
  name = 'visionStreamingApi';

  displayName = 'Vision & Streaming API';

  icon = { light: 'file:visionStreaming.svg', dark: 'file:visionStreaming.dark.svg' } as const;

  documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-vision-streaming#n8n';

  properties: INodeProperties[] = [
    {
      displayName: 'Client ID',
      name: 'clientId',
      type: 'string',
      default: '',
      required: true,
    },
    {
      displayName: 'Client Secret',
      name: 'clientSecret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
    },
    {
      displayName: 'Auth URL',
      name: 'authUrl',
      type: 'string',
      default: DEFAULT_URLS.authUrl,
      description: 'Base address of the token service (the token endpoint is <Auth URL>/v1/token). Point it at the sandbox (e.g. http://127.0.0.1:8787) to work offline.',
    },
    {
      displayName: 'Vision URL',
      name: 'visionUrl',
      type: 'string',
      default: DEFAULT_URLS.visionUrl,
      description: 'Base address of the Visual Recognition API (a trailing /v1 is accepted)',
    },
    {
      displayName: 'Streaming URL',
      name: 'sfuUrl',
      type: 'string',
      default: DEFAULT_URLS.sfuUrl,
      description: 'Base address of the Live Streaming API (a trailing /v1 is accepted)',
    },
    {
      // Filled by preAuthentication; n8n empties and refills it after a 401.
      displayName: 'Access Token',
      name: 'accessToken',
      type: 'hidden',
      typeOptions: { expirable: true, password: true },
      default: '',
    },
    {
      // Issued with the token and renewed with it; the vision API wants it in x-api-key.
      displayName: 'API Key',
      name: 'apiKey',
      type: 'hidden',
      typeOptions: { password: true },
      default: '',
    },
  ];

  /** Fetches one token with every scope of both services (vision and streaming). */
  async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject): Promise<IDataObject> {
    // Through n8n's own request helper, so the instance's proxy and TLS settings apply; the runtime's
    // fetch when n8n gives none (its credential tester may not).
    const transport = typeof this.helpers?.httpRequest === 'function' ? plainTransport(this.helpers) : fetchTransport;
    const token = await requestTokenOver({ transport, hostTransport: true, sleep: hostSleep }, {
      authUrl: String(credentials.authUrl ?? DEFAULT_URLS.authUrl),
      clientId: String(credentials.clientId ?? ''),
      clientSecret: String(credentials.clientSecret ?? ''),
      scopes: ALL_SCOPES,
    });
    return { accessToken: token.accessToken, apiKey: token.apiKey ?? '' };
  }

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: {
        Authorization: '=Bearer {{$credentials.accessToken}}',
        'x-api-key': '={{$credentials.apiKey}}',
      },
    },
  };

  // Listing collections needs a valid token and API key, and changes nothing.
  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.visionUrl.replace(/\\/+$/, "").replace(/\\/v1$/, "")}}',
      url: '/v1/face_collections',
      method: 'GET',
      headers: { 'Content-Type': 'application/json' },
    },
  };
}
