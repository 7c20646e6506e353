import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { InputError } from '../../shared/errors';
import { MAX_IMAGE_BYTES, type ImageInput } from '../../shared/image';
import { PeopleDirectory, PeopleError, type PeopleStore, type PersonRef } from '../../shared/people';
import type { VisionApi } from '../../shared/vision/vision-api';
import type { VisitorStore } from '../../shared/watch';
import { cancelSignal } from '../common/clients';
import { hostDownload } from '../common/host-io';
import { idParameter } from '../common/locators';
import { credentialTypeOf } from '../common/transport';
import { peopleStore } from '../common/people-table';
import type { OperationResult } from './operations';
import { plain } from './shape';

type Operation = (ctx: IExecuteFunctions, client: VisionApi, i: number) => Promise<OperationResult>;

/** A person parameter as the core names people: an id made by the package (p_…), else a name. */
function personRef(ctx: IExecuteFunctions, name: string, i: number): PersonRef {
  const text = String(ctx.getNodeParameter(name, i, '') ?? '').trim();
  return /^p_[A-Za-z0-9-]{1,100}$/.test(text) ? { person_id: text } : { name: text };
}

const text = (ctx: IExecuteFunctions, name: string, i: number) => String(ctx.getNodeParameter(name, i, '') ?? '').trim();

/** The photos of item `i` (binary properties or a URL), or a visitor, as the operation's Photo Input says. */
async function photos(ctx: IExecuteFunctions, i: number, many: boolean): Promise<{ images: ImageInput[]; visitorId?: string }> {
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
async function withDirectory(ctx: IExecuteFunctions, client: VisionApi, i: number, call: (people: PeopleDirectory) => Promise<unknown>, visitorId?: string): Promise<OperationResult> {
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
  const people = new PeopleDirectory({ collectionId, store, vision: client, ...(visitorId ? { visitors: givenVisitor(client, collectionId, visitorId) } : {}) });
  try {
    return { json: plain(await call(people)) as IDataObject };
  } catch (err) {
    throw err instanceof PeopleError && err.code === 'people_store_failed' && failure instanceof PeopleError ? failure : err;
  }
}

/** The Person resource: one core call of the people directory each. */
export const PERSON_OPERATIONS: Record<string, Operation> = {
  async list(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.list());
  },
  async add(ctx, client, i) {
    const { images, visitorId } = await photos(ctx, i, true);
    const name = text(ctx, 'name', i);
    return withDirectory(ctx, client, i, (people) => people.addPerson({ name, images, ...(visitorId !== undefined ? { visitorId } : {}) }), visitorId);
  },
  async addFace(ctx, client, i) {
    const { images, visitorId } = await photos(ctx, i, false);
    const person = personRef(ctx, 'person', i);
    return withDirectory(ctx, client, i, (people) => people.addFace(visitorId !== undefined ? { person, visitorId } : { person, image: images[0] }), visitorId);
  },
  async rename(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.rename({ person: personRef(ctx, 'person', i), to: text(ctx, 'newName', i) }));
  },
  async merge(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.merge({ from: personRef(ctx, 'person', i), into: personRef(ctx, 'into', i) }));
  },
  async notThisPerson(ctx, client, i) {
    const { images } = await photos(ctx, i, false);
    return withDirectory(ctx, client, i, (people) => people.notThisPerson({ person: personRef(ctx, 'person', i), image: images[0] }));
  },
  async removeFace(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.removeFace({ faceId: text(ctx, 'faceId', i) }));
  },
  async forget(ctx, client, i) {
    return withDirectory(ctx, client, i, (people) => people.forget({ person: personRef(ctx, 'person', i) }));
  },
  async importLabels(ctx, client, i) {
    const rows = (ctx.getNodeParameter('labels', i, {}) as { label?: { id?: string; name?: string }[] }).label ?? [];
    const labels = Object.fromEntries(rows.filter((r) => String(r.id ?? '').trim() !== '').map((r) => [String(r.id).trim(), String(r.name ?? '')]));
    return withDirectory(ctx, client, i, (people) => people.importLabels(labels));
  },
};
