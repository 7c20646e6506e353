import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { VisionApi } from '../../shared/vision/vision-api';
import { resultBoxes, type ResultBox } from '../../shared/vision/boxes';
import { readImage } from '../common/image-input';
import { idParameter } from '../common/locators';
import { IMAGE, SOURCE, TARGET } from './description';
import { box, plain, simpleCollectionCompare, simpleCompare, simpleFaces, simpleHumans } from './shape';

/** What one operation produced for one item: its JSON, and the image and boxes to draw when asked. */
export interface OperationResult {
  json: IDataObject;
  /** The first image of the operation: bytes, or a URL (downloaded once more when boxes are drawn). */
  image?: Buffer | string;
  boxes?: ResultBox[];
  /** Binary data the operation gives (History's media), added to the item. */
  binary?: Record<string, import('n8n-workflow').IBinaryData>;
}

type Operation = (ctx: IExecuteFunctions, client: VisionApi, i: number, signal?: AbortSignal) => Promise<OperationResult>;

const simplified = (ctx: IExecuteFunctions, i: number) => ctx.getNodeParameter('simplify', i, true) as boolean;
const collectionId = (ctx: IExecuteFunctions, i: number) => idParameter(ctx, 'collectionId', i);

/** One function per resource and operation; each reads its parameters and calls one core method. */
export const OPERATIONS: Record<string, Record<string, Operation>> = {
  image: {
    async detectFaces(ctx, client, i, signal) {
      const image = await readImage(ctx, i, IMAGE);
      const faces = await client.detectFaces(image, { signal });
      const json = simplified(ctx, i) ? simpleFaces(faces) : plain({ faces });
      return { json, image, boxes: resultBoxes.faces(faces) };
    },
    async detectHumans(ctx, client, i, signal) {
      const image = await readImage(ctx, i, IMAGE);
      const humans = await client.detectHumans(image, { signal });
      const json = simplified(ctx, i) ? simpleHumans(humans) : plain({ humans });
      return { json, image, boxes: resultBoxes.humans(humans) };
    },
  },
  face: {
    async compare(ctx, client, i, signal) {
      const source = await readImage(ctx, i, SOURCE);
      const target = await readImage(ctx, i, TARGET);
      const result = await client.compareFaces(source, target, { signal });
      const json = simplified(ctx, i) ? simpleCompare(result) : plain(result);
      return { json, image: source, boxes: resultBoxes.comparison(result) };
    },
  },
  faceCollection: {
    async compare(ctx, client, i, signal) {
      const id = collectionId(ctx, i);
      const image = await readImage(ctx, i, IMAGE);
      const maxResults = ctx.getNodeParameter('maxResults', i, 10) as number;
      const result = await client.compareWithCollection(id, image, { maxResults, signal });
      const json = simplified(ctx, i) ? simpleCollectionCompare(result) : plain(result);
      return { json, image, boxes: resultBoxes.collectionMatch(result) };
    },
    async create(_ctx, client, _i, signal) {
      const created = await client.createCollection({ signal });
      return { json: { collectionId: created.collectionId } };
    },
    async delete(ctx, client, i, signal) {
      const id = collectionId(ctx, i);
      await client.deleteCollection(id, { signal });
      return { json: { deleted: true, collectionId: id } };
    },
    async getAll(_ctx, client, _i, signal) {
      const collections = await client.listCollections({ signal });
      return { json: { count: collections.length, collections: plain(collections) as unknown as IDataObject[] } };
    },
  },
  collectionFace: {
    async add(ctx, client, i, signal) {
      const id = collectionId(ctx, i);
      const image = await readImage(ctx, i, IMAGE);
      const added = await client.addFace(id, image, { signal });
      const json = simplified(ctx, i) ? { collectionId: id, faceId: added.faceId, ...box(added.location) } : plain({ collectionId: id, ...added });
      return { json, image, boxes: resultBoxes.addedFace(added) };
    },
    async getAll(ctx, client, i, signal) {
      const id = collectionId(ctx, i);
      const faces = await client.listFaces(id, { signal });
      return { json: { collectionId: id, count: faces.length, faces: plain(faces) as unknown as IDataObject[] } };
    },
    async remove(ctx, client, i, signal) {
      const id = collectionId(ctx, i);
      const faceId = String(ctx.getNodeParameter('faceId', i, '') ?? '').trim();
      await client.removeFace(id, faceId, { signal });
      return { json: { removed: true, collectionId: id, faceId } };
    },
  },
};
