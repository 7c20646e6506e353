import type { IExecuteFunctions, ILoadOptionsFunctions, INodeListSearchResult, INodeProperties, ITriggerFunctions } from 'n8n-workflow';
import { checkUuid, collectionEntries, roomEntries, UUID_PATTERN, type PickEntry } from '../../shared/pick';
import { streamingClient, visionClient } from './clients';
import { toNodeError } from './errors';

/**
 * Room and collection parameters as resource locators (version 2 of each node): picked from a
 * searchable list that asks the service with the node's credential, or pasted by ID, which the
 * editor holds to the UUID shape. Version 1 nodes keep the plain text parameters they were saved
 * with; the code reads both.
 */

type Shown = NonNullable<INodeProperties['displayOptions']>['show'];

/** Shown for version 1 only / from version 2 on, besides the parameter's own conditions. */
const V1 = { '@version': [1] };
const V2 = { '@version': [{ _cnd: { gte: 2 } }] };

interface LocatorSpec {
  name: 'roomId' | 'collectionId';
  displayName: string;
  description: string;
  show?: Shown;
}

const KINDS = {
  roomId: { method: 'searchRooms', what: 'room', placeholder: 'e.g. 0f8fad5b-d9cb-469f-a165-70867728950e' },
  collectionId: { method: 'searchCollections', what: 'collection', placeholder: 'e.g. 7c9e6679-7425-40de-944b-e07fc1f90ae7' },
} as const;

/** The parameter twice: plain text for version 1 nodes, a resource locator from version 2 on. */
export function idParameters(spec: LocatorSpec): INodeProperties[] {
  const kind = KINDS[spec.name];
  const plain: INodeProperties = {
    displayName: spec.displayName,
    name: spec.name,
    type: 'string',
    default: '',
    required: true,
    description: spec.description,
    displayOptions: { show: { ...(spec.show ?? {}), ...V1 } },
  };
  const locator: INodeProperties = {
    displayName: spec.displayName.replace(/ ID$/, ''),
    name: spec.name,
    type: 'resourceLocator',
    default: { mode: 'list', value: '' },
    required: true,
    description: spec.description,
    displayOptions: { show: { ...(spec.show ?? {}), ...V2 } },
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: `Select a ${kind.what}...`,
        typeOptions: { searchListMethod: kind.method, searchable: true },
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: kind.placeholder,
        validation: [{ type: 'regex', properties: { regex: UUID_PATTERN, errorMessage: `Not a valid ${kind.what} ID: ${kind.what} IDs are UUIDs like ${kind.placeholder.slice(5)}` } }],
      },
    ],
  };
  return [plain, locator];
}

/**
 * The room or collection ID of item `i`, from either shape. From version 2 on it must be a UUID:
 * a pasted ID the editor flagged, or an expression that gave something else, fails here with a
 * message naming the field (mapped to the parameter by the node's labels) before anything is sent.
 */
export function idParameter(ctx: IExecuteFunctions, name: 'roomId' | 'collectionId', i: number): string {
  return checkedId(ctx, name, ctx.getNodeParameter(name, i, '', { extractValue: true }));
}

/** The same for a trigger, whose parameters have no item index. */
export function triggerIdParameter(ctx: ITriggerFunctions, name: 'roomId' | 'collectionId'): string {
  return checkedId(ctx, name, ctx.getNodeParameter(name, '', { extractValue: true }));
}

function checkedId(ctx: IExecuteFunctions | ITriggerFunctions, name: 'roomId' | 'collectionId', raw: unknown): string {
  const value = String(raw ?? '').trim();
  return ctx.getNode().typeVersion >= 2 ? checkUuid(value, name) : value;
}

function results(entries: PickEntry[]): INodeListSearchResult {
  return { results: entries.map((e) => ({ name: e.name, value: e.value, description: e.description })) };
}

/** Lists for the resource locators, asked with the node's credential; a failure shows as n8n's usual error. */
export const listSearch = {
  async searchRooms(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
    const { client, state } = await streamingClient(this);
    try {
      return results(roomEntries(await client.listRooms('all'), filter));
    } catch (err) {
      throw toNodeError(this.getNode(), err, 0, {}, state);
    } finally {
      await client.close();
    }
  },
  async searchCollections(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
    const { client, state } = await visionClient(this);
    try {
      return results(collectionEntries(await client.listCollections(), filter));
    } catch (err) {
      throw toNodeError(this.getNode(), err, 0, {}, state);
    } finally {
      await client.close();
    }
  },
} satisfies Record<string, (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>>;
