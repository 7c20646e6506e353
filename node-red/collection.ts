import type { NodeAPI } from 'node-red';
import { createdResult, deleteById, listResult, optionalNumber, override, pickOperation, registerActionNode, type ActionContext, type ActionResult, type ServiceNodeDef } from './lib/action-node';
import { imageWithBoxes } from '../shared/picture/boxes';
import { resultBoxes } from '../shared/vision/boxes';
import { readImage } from './lib/read-image';

interface CollectionDef extends ServiceNodeDef {
  operation?: string;
  collectionId?: string;
  faceId?: string;
  /** Message property of the image (default payload). */
  image?: string;
  maxResults?: string | number;
  /** compare and addFace: adds msg.image, the input image with the face boxed. */
  drawBoxes?: boolean;
}

const OPERATIONS = ['listCollections', 'createCollection', 'deleteCollection', 'listFaces', 'addFace', 'removeFace', 'compare'] as const;

/** Registers `vision-streaming-collection`: face collections and comparing an image with one. */
export = function register(RED: NodeAPI): void {
  registerActionNode<CollectionDef>(RED, 'vision-streaming-collection', 'working', (ctx) => run(ctx));
};

async function run(ctx: ActionContext<CollectionDef>): Promise<ActionResult> {
  const { def, msg, signal } = ctx;
  const operation = pickOperation(msg, def.operation, 'compare', OPERATIONS);
  const vision = ctx.connection.vision();
  const collectionId = () => override(msg, 'collectionId', def.collectionId) as string;
  const faceId = () => override(msg, 'faceId', def.faceId) as string;
  const draw = () => override(msg, 'drawBoxes', def.drawBoxes === true) === true;
  switch (operation) {
    case 'listCollections':
      return listResult(await vision.listCollections({ signal }), 'collection');
    case 'createCollection': {
      const created = await vision.createCollection({ signal });
      return createdResult(created, 'collectionId', created.collectionId);
    }
    case 'deleteCollection':
      return deleteById('collectionId', collectionId(), (id) => vision.deleteCollection(id, { signal }));
    case 'listFaces': {
      const id = collectionId();
      return listResult(await vision.listFaces(id, { signal }), 'face', { collectionId: id });
    }
    case 'addFace': {
      const id = collectionId();
      const image = readImage(ctx.RED, msg, def.image, 'image');
      const added = await vision.addFace(id, image, { signal });
      const properties: Record<string, unknown> = { collectionId: id, faceId: added.faceId };
      if (draw()) properties.image = await imageWithBoxes(image, resultBoxes.addedFace(added), { signal, ...ctx.connection.imageDownloads() });
      return { payload: added, properties, status: 'face added' };
    }
    case 'removeFace': {
      const id = collectionId();
      const face = faceId();
      await vision.removeFace(id, face, { signal });
      return { payload: { collectionId: id, faceId: face, removed: true }, properties: { collectionId: id, faceId: face }, status: 'face removed' };
    }
    case 'compare': {
      const id = collectionId();
      const maxResults = optionalNumber(override(msg, 'maxResults', def.maxResults));
      const image = readImage(ctx.RED, msg, def.image, 'image');
      const result = await vision.compareWithCollection(id, image, { maxResults, signal });
      const best = result.target.faces[0];
      const properties: Record<string, unknown> = { collectionId: id, match: best ?? null };
      if (draw()) properties.image = await imageWithBoxes(image, resultBoxes.collectionMatch(result), { signal, ...ctx.connection.imageDownloads() });
      return {
        payload: result,
        properties,
        status: best ? `best ${best.score.toFixed(2)}` : 'no faces in collection',
      };
    }
  }
}
