import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { InputError } from '../../../shared/errors';
import { MAX_IMAGE_BYTES, type ImageInput } from '../../../shared/image';
import { PeopleDirectory, PeopleError, type PeopleStore, type PersonRef } from '../../../shared/people';
import type { HistoryStore } from '../../../shared/history/types';
import type { VisionApi } from '../../../shared/vision/vision-api';
import type { VisitorStore } from '../../../shared/watch';
import { cancelSignal } from '../../common/clients';
import { hostDownload } from '../../common/host-io';
import { idParameter } from '../../common/locators';
import { peopleStore } from '../../common/people-table';
import { credentialTypeOf } from '../../common/transport';
import type { OperationResult } from '../operations';
import { plain } from '../shape';

/** Shown for the Person resource, with the given operations. */
export const shownFor = (operations?: string[]) => ({ resource: ['person'], ...(operations ? { operation: operations } : {}) });

/** One operation of the Person resource: its entry in the operation list, its parameters, the labels of its core fields, and its run. */
export interface PersonOperation {
  option: INodePropertyOptions & { value: string };
  /** Its own parameters, in display order (each shown for this operation). */
  properties: INodeProperties[];
  /** Parameter names behind the core's field names its errors carry. */
  labels: Record<string, string>;
  execute(ctx: IExecuteFunctions, client: VisionApi, i: number): Promise<OperationResult>;
}

/** Matches an id the package makes for a person. */
const PERSON_ID = '^p_[A-Za-z0-9-]{1,100}$';

/** A person as a resource locator: by name, or by the id the package made (p_…). */
export function personLocator(name: string, displayName: string, description: string, operations: string[]): INodeProperties {
  return {
    displayName,
    name,
    type: 'resourceLocator',
    default: { mode: 'name', value: '' },
    required: true,
    description,
    displayOptions: { show: shownFor(operations) },
    modes: [
      { displayName: 'By Name', name: 'name', type: 'string', placeholder: 'e.g. Eileen' },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'e.g. p_0f8fad5b-d9cb-469f-a165-70867728950e',
        validation: [{ type: 'regex', properties: { regex: PERSON_ID, errorMessage: 'Not a person ID: person IDs are p_ and a UUID, as Person > List gives them' } }],
      },
    ],
  };
}

/**
 * The person parameter of item `i`. A locator says what it holds (by name or by id); a plain text
 * value, as workflows saved before the locator hold, is read as they were: an id of the package's
 * shape (p_…) is an id, anything else a name.
 */
export function personRef(ctx: IExecuteFunctions, name: string, i: number): PersonRef {
  const raw = ctx.getNodeParameter(name, i, '') as unknown;
  if (raw !== null && typeof raw === 'object' && '__rl' in raw) {
    const { mode, value } = raw as { mode?: unknown; value?: unknown };
    const text = String(value ?? '').trim();
    return mode === 'id' ? { person_id: text } : { name: text };
  }
  const text = String(raw ?? '').trim();
  return new RegExp(PERSON_ID).test(text) ? { person_id: text } : { name: text };
}

/** A text parameter of item `i`, trimmed. */
export const text = (ctx: IExecuteFunctions, name: string, i: number) => String(ctx.getNodeParameter(name, i, '') ?? '').trim();

/** Where a photo comes from: each operation offers the sources it takes. */
export function photoInput(operations: string[], choices: INodePropertyOptions[], fallback: string): INodeProperties {
  return { displayName: 'Photo Input', name: 'photoInput', type: 'options', options: choices, default: fallback, displayOptions: { show: shownFor(operations) } };
}

export const BINARY: INodePropertyOptions = { name: 'Binary File', value: 'binary', description: 'A JPEG or PNG in a binary property of the input item (e.g. "face" of a Face Match Trigger event)' };
export const URL_INPUT: INodePropertyOptions = { name: 'URL', value: 'url', description: 'An http(s) address of a JPEG or PNG' };
export const VISITOR: INodePropertyOptions = { name: 'Remembered Visitor', value: 'visitor', description: 'The face the Face Match Trigger enrolled for a visitor (its Visitor ID)' };
export const NONE: INodePropertyOptions = { name: 'None', value: 'none', description: 'A person without a face yet' };

/** The one-photo parameters (binary property or URL) of an operation. */
export function onePhotoProperties(operation: string): INodeProperties[] {
  return [
    {
      displayName: 'Photo Binary Property',
      name: 'photoBinaryProperty',
      type: 'string',
      default: 'data',
      required: true,
      description: 'Binary property holding the photo (one face of 120 px or more)',
      displayOptions: { show: { ...shownFor([operation]), photoInput: ['binary'] } },
    },
    photoUrl(operation),
  ];
}

/** The Photo URL parameter of an operation. */
export function photoUrl(operation: string): INodeProperties {
  return {
    displayName: 'Photo URL',
    name: 'photoUrl',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'https://example.com/photo.jpg',
    description: 'Address of a JPEG or PNG with the face',
    displayOptions: { show: { ...shownFor([operation]), photoInput: ['url'] } },
  };
}

/** The Visitor ID parameter of an operation. */
export function visitorIdProperty(operation: string): INodeProperties {
  return {
    displayName: 'Visitor ID',
    name: 'visitorId',
    type: 'string',
    default: '',
    required: true,
    placeholder: '={{ $json.visitorId }}',
    description: "The visitor's ID from a Face Match Trigger event (its face moves into the person)",
    displayOptions: { show: { ...shownFor([operation]), photoInput: ['visitor'] } },
  };
}

/** The photos of item `i` (binary properties or a URL), or a visitor, as the operation's Photo Input says. */
export async function photos(ctx: IExecuteFunctions, i: number, many: boolean): Promise<{ images: ImageInput[]; visitorId?: string }> {
  const input = ctx.getNodeParameter('photoInput', i, 'binary') as string;
  if (input === 'none') return { images: [] };
  if (input === 'visitor') return { images: [], visitorId: text(ctx, 'visitorId', i) };
  if (input === 'url') return { images: [await download(ctx, text(ctx, 'photoUrl', i), many ? 'images' : 'image')] };
  const properties = text(ctx, 'photoBinaryProperty', i).split(',').map((p) => p.trim()).filter(Boolean);
  const field = many ? 'images' : 'image';
  if (properties.length === 0) throw new InputError('invalid_input', 'Photo Binary Property names no binary property', { field, limit: 'the name of a binary property of the input item' });
  if (!many && properties.length > 1) throw new InputError('invalid_input', `Photo Binary Property names ${properties.length} properties; this operation takes one photo`, { field, limit: 'one binary property' });
  const images: ImageInput[] = [];
  for (const property of properties) {
    ctx.helpers.assertBinaryData(i, property);
    images.push(await ctx.helpers.getBinaryDataBuffer(i, property));
  }
  return { images };
}

/** A photo URL downloaded through n8n's request helper (its proxy settings apply), checked like the node's other image downloads. */
async function download(ctx: IExecuteFunctions, url: string, field: string): Promise<Buffer> {
  const credentials = await ctx.getCredentials(credentialTypeOf(ctx));
  const visionUrl = typeof credentials.visionUrl === 'string' ? credentials.visionUrl : undefined;
  return (await hostDownload(ctx, visionUrl)(url, field, MAX_IMAGE_BYTES, cancelSignal(ctx), 'download')).bytes;
}

/**
 * Visitors of the Face Match Trigger live in that trigger's own workflow data, out of an action
 * node's reach: a Visitor ID given here is taken at its word, checked against the collection
 * itself (the visitor's face must be in it). A trigger that uses the same people table drops its
 * record of the visitor once it reads the face as the person's.
 */
function givenVisitor(client: VisionApi, collectionId: string, visitorId: string): VisitorStore {
  return {
    name: 'Visitor ID',
    load: async () => {
      const inCollection = (await client.listFaces(collectionId)).some((f) => f.faceId === visitorId);
      const now = new Date().toISOString();
      return { kind: 'vision-streaming-visitors', version: 1, collectionId, visitors: inCollection ? [{ visitorId, firstSeen: now, lastSeen: now, visits: 1 }] : [] };
    },
    save: () => undefined,
  };
}

/**
 * Runs one call of the directory of item `i` (its collection, its table, the node's vision client).
 * The directory reports a table it could not read by its code only; the table's own error says
 * what to check (the API key, the table's ID), so that one is shown instead.
 */
export async function withDirectory(
  ctx: IExecuteFunctions,
  client: VisionApi,
  i: number,
  call: (people: PeopleDirectory) => Promise<unknown>,
  visitorId?: string,
  history?: HistoryStore,
): Promise<OperationResult> {
  const collectionId = idParameter(ctx, 'collectionId', i);
  const table = await peopleStore(ctx, i, collectionId);
  let failure: unknown;
  const remember = <T>(step: () => Promise<T>): Promise<T> => {
    const running = step();
    running.catch((err: unknown) => (failure = err));
    return running;
  };
  const store: PeopleStore = { name: table.name, load: () => remember(() => table.load()), update: (change) => remember(() => table.update(change)) };
  // The directory calls only VisionApi's methods; the node's client is a VisionApi over n8n's transport.
  const people = new PeopleDirectory({ collectionId, store, vision: client, ...(visitorId ? { visitors: givenVisitor(client, collectionId, visitorId) } : {}), ...(history ? { history } : {}) });
  try {
    return { json: plain(await call(people)) as IDataObject };
  } catch (err) {
    throw err instanceof PeopleError && err.code === 'people_store_failed' && failure instanceof PeopleError ? failure : err;
  }
}
