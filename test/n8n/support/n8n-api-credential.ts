import type { ICredentialType } from 'n8n-workflow';
import type { LoadedPackage } from './engine';

/** n8n-nodes-base's built-in n8n API credential type (not installed here), as data: the same fields and header. */
export const N8N_API_CREDENTIAL_TYPE: ICredentialType = {
  name: 'n8nApi',
  displayName: 'n8n API',
  properties: [
    { displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
    { displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '', placeholder: 'https://<name>.app.n8n.cloud/api/v1' },
  ],
  authenticate: { type: 'generic', properties: { headers: { 'X-N8N-API-KEY': '={{ $credentials.apiKey }}' } } },
};

/** Makes the n8n API credential type known to engines over `pkg`, as n8n itself provides it beside the package's own. */
export function registerN8nApiCredential(pkg: LoadedPackage): void {
  pkg.credentialTypes.set(N8N_API_CREDENTIAL_TYPE.name, N8N_API_CREDENTIAL_TYPE);
}
