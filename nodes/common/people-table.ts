import type { IAllExecuteFunctions, IExecuteFunctions, IHttpRequestMethods, IHttpRequestOptions, ILoadOptionsFunctions, INodeListSearchResult, INodeProperties, ITriggerFunctions } from 'n8n-workflow';
import { InputError } from '../../shared/errors';
import { dataTableEntries, type TableHttpRequest, type TableRequest } from '../../shared/people/table-api';
import { TablePeopleStore } from '../../shared/people/table-store';
import { toNodeError } from './errors';

/**
 * The people directory of n8n: a data table the user picks, read and written through n8n's public
 * REST API with n8n's own API credential (`n8nApi` of n8n-nodes-base: API key and base URL). A
 * community node cannot use n8n's internal data table access, which is reserved to n8n's own nodes.
 */

/** n8n's built-in credential type for its public API. */
export const N8N_API_CREDENTIAL = 'n8nApi';

type Shown = NonNullable<INodeProperties['displayOptions']>['show'];

/** The people table parameter: picked from the data tables the API key sees, or by ID. */
export function peopleTableParameter(show: Shown, required = true): INodeProperties {
  return {
    displayName: 'People Table',
    name: 'peopleTable',
    type: 'resourceLocator',
    default: { mode: 'list', value: '' },
    required,
    description: "The n8n data table that holds the people's names, one row a face (its columns are added on the first change)",
    displayOptions: { show },
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: 'Select a data table...',
        typeOptions: { searchListMethod: 'searchDataTables', searchable: true },
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'e.g. 5Fq2iRkM7Xcz2Q1w',
        validation: [{ type: 'regex', properties: { regex: '^[A-Za-z0-9_-]{1,64}$', errorMessage: 'Not a data table ID: letters, digits, _ and - (as in the address of the table in n8n)' } }],
      },
    ],
  };
}

/** The base of n8n's public API from the credential's Base URL, with /api/v1 added when it is left out. */
export function apiBase(baseUrl: unknown): string {
  const text = typeof baseUrl === 'string' ? baseUrl.trim().replace(/\/+$/, '') : '';
  if (!/^https?:\/\/[^/\s]+/i.test(text)) {
    throw new InputError('invalid_input', 'The n8n API credential needs a Base URL, the address of this n8n with /api/v1 (e.g. https://n8n.example.com/api/v1)', { field: 'baseUrl', limit: 'an http(s) address' });
  }
  return /\/api\/v1$/.test(text) ? text : `${text}/api/v1`;
}

/** Requests of n8n's public API with the node's n8n API credential, through n8n's request helper (its proxy settings apply). */
export async function credentialRequest(ctx: IAllExecuteFunctions): Promise<TableRequest> {
  const base = apiBase((await ctx.getCredentials(N8N_API_CREDENTIAL)).baseUrl);
  return async (req) => asResponse(await ctx.helpers.httpRequestWithAuthentication.call(ctx, N8N_API_CREDENTIAL, options(base, req)));
}

/**
 * The same for a trigger, whose requests come long after activation, outside any execution (where
 * n8n would no longer resolve the credential's header): the key is read once, at activation, and
 * sent by the request helper itself.
 */
export async function triggerRequest(ctx: ITriggerFunctions): Promise<TableRequest> {
  const credentials = await ctx.getCredentials(N8N_API_CREDENTIAL);
  const base = apiBase(credentials.baseUrl);
  const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey : '';
  return async (req) => {
    const sent = options(base, req);
    return asResponse(await ctx.helpers.httpRequest({ ...sent, headers: { ...sent.headers, 'X-N8N-API-KEY': apiKey } }));
  };
}

/** The people store of item `i` (its table and collection), over the node's n8n API credential. */
export async function peopleStore(ctx: IExecuteFunctions, i: number, collectionId: string): Promise<TablePeopleStore> {
  return new TablePeopleStore({ request: await credentialRequest(ctx), tableId: tableIdParameter(ctx.getNodeParameter('peopleTable', i, '', { extractValue: true })), collectionId });
}

/** The picked table's id, checked. */
export function tableIdParameter(raw: unknown): string {
  const id = String(raw ?? '').trim();
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new InputError('invalid_input', 'People Table must be a data table ID (letters, digits, _ and -)', { field: 'peopleTable', limit: 'a data table ID' });
  return id;
}

/** The data tables for the People Table list, asked with the node's n8n API credential. */
export const peopleListSearch = {
  async searchDataTables(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
    try {
      const entries = await dataTableEntries(await credentialRequest(this), filter);
      return { results: entries.map((e) => ({ name: e.name, value: e.value, description: e.description })) };
    } catch (err) {
      throw toNodeError(this.getNode(), err, 0, { baseUrl: 'Base URL (n8n API credential)' });
    }
  },
};

function options(base: string, req: TableHttpRequest): IHttpRequestOptions {
  return {
    method: req.method as IHttpRequestMethods,
    url: `${base}${req.path}`,
    ...(req.query ? { qs: req.query } : {}),
    ...(req.body !== undefined ? { body: req.body as IHttpRequestOptions['body'] } : {}),
    headers: { accept: 'application/json' },
    json: true,
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
  };
}

function asResponse(response: unknown): { status: number; body: unknown } {
  const full = response as { statusCode?: number; body?: unknown };
  let body = full.body;
  if (typeof body === 'string' && body.trim() !== '') {
    try {
      body = JSON.parse(body);
    } catch {
      // A page that is not JSON (a proxy's error page): its status says enough.
    }
  }
  return { status: full.statusCode ?? 0, body };
}
