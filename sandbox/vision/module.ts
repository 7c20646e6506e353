import type { IncomingMessage, ServerResponse } from 'node:http';
import { guard } from '../auth/guard';
import type { TokenStore } from '../auth/token-store';
import { mediaType } from '../http/body';
import { sendEmpty, sendJson, sendMessage } from '../http/respond';
import type { SandboxContext, SandboxModule } from '../module';
import { CollectionStore } from './collections';
import { VisionError, unsupportedMedia } from './errors';
import { analyzeImage, scoreNumber, scoreText, usableFace } from './face-rules';
import { readDetectionImage, readNamedImages } from './image-input';
import type { FaceModel } from './model/face-model';
import { headBox, headScore, toLocation } from './model/geometry';
import { descriptorDistance, similarityFromDistance } from './model/similarity';
import { ImageFetcher } from './url-fetch';

/** What the vision module needs from the sandbox. */
export interface VisionModuleOptions {
  collectionLimit: number;
  facesPerCollection: number;
  imageFetchTimeoutMs: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, clientId: string, body: Buffer, ids: string[]) => Promise<void>;

interface Route {
  method: string;
  pattern: RegExp;
  endpoint: string;
  run: Handler;
}

const ID = '([^/]+)';

/** Serves the Visual Recognition endpoints (/v1/detect_*, /v1/compare_faces*, /v1/face_collections*). */
export function createVisionModule(
  ctx: SandboxContext,
  tokens: TokenStore,
  model: FaceModel,
  options: VisionModuleOptions,
): SandboxModule {
  const collections = new CollectionStore(options.collectionLimit, options.facesPerCollection);
  const fetcher = new ImageFetcher(options.imageFetchTimeoutMs);

  const detectHumans: Handler = async (req, res, _client, body) => {
    const image = await readDetectionImage(req, body, fetcher);
    const analysis = await analyzeImage(model, image, 'submitted');
    const humans = analysis.faces.map((face) => ({
      score: headScore(face.score),
      location: toLocation(headBox(face.box, analysis.width, analysis.height), analysis.width, analysis.height),
    }));
    sendJson(res, 200, { humans });
  };

  const detectFaces: Handler = async (req, res, _client, body) => {
    const image = await readDetectionImage(req, body, fetcher);
    const analysis = await analyzeImage(model, image, 'submitted');
    const faces = analysis.faces.map((face) => ({
      direction: face.direction,
      location: toLocation(face.box, analysis.width, analysis.height),
    }));
    sendJson(res, 200, { faces });
  };

  const compareTwo: Handler = async (req, res, _client, body) => {
    const { images } = await readNamedImages(req, body, ['source', 'target'], false, fetcher);
    const source = await analyzeImage(model, images.source, 'source');
    const target = await analyzeImage(model, images.target, 'target');
    const a = usableFace(source, 'source');
    const b = usableFace(target, 'target');
    sendJson(res, 200, {
      score: scoreNumber(similarityFromDistance(descriptorDistance(a.descriptor, b.descriptor))),
      source: { location: toLocation(a.face.box, source.width, source.height) },
      target: { location: toLocation(b.face.box, target.width, target.height) },
    });
  };

  const compareCollection: Handler = async (req, res, client, body, [collectionId]) => {
    collections.faces(client, collectionId);
    const { images, maxResults } = await readNamedImages(req, body, ['image'], true, fetcher);
    const analysis = await analyzeImage(model, images.image, 'submitted');
    const { face, descriptor } = usableFace(analysis, 'submitted');
    const scored = collections
      .faces(client, collectionId)
      .map((stored) => ({ faceId: stored.faceId, score: similarityFromDistance(descriptorDistance(descriptor, stored.descriptor)) }))
      .sort((x, y) => y.score - x.score || x.faceId.localeCompare(y.faceId))
      .slice(0, maxResults);
    sendJson(res, 200, {
      source: { location: toLocation(face.box, analysis.width, analysis.height) },
      target: { collection_id: collectionId, faces: scored.map((s) => ({ face_id: s.faceId, score: scoreText(s.score) })) },
    });
  };

  const listCollections: Handler = async (_req, res, client) => {
    sendJson(res, 200, { face_collections: collections.list(client).map((id) => ({ collection_id: id })) });
  };

  const createCollection: Handler = async (req, res, client) => {
    // The spec has this POST carry application/json (with no body); other types are refused like elsewhere.
    if (mediaType(req) !== 'application/json') throw unsupportedMedia();
    sendJson(res, 201, { collection_id: collections.create(client) });
  };

  const deleteCollection: Handler = async (_req, res, client, _body, [collectionId]) => {
    collections.delete(client, collectionId);
    sendEmpty(res, 204);
  };

  const listFaces: Handler = async (_req, res, client, _body, [collectionId]) => {
    sendJson(res, 200, { faces: collections.faces(client, collectionId).map((f) => ({ face_id: f.faceId })) });
  };

  const addFace: Handler = async (req, res, client, body, [collectionId]) => {
    collections.assertRoom(client, collectionId);
    const { images } = await readNamedImages(req, body, ['image'], false, fetcher);
    const analysis = await analyzeImage(model, images.image, 'submitted');
    const { face, descriptor } = usableFace(analysis, 'submitted');
    const location = toLocation(face.box, analysis.width, analysis.height);
    const faceId = collections.addFace(client, collectionId, descriptor, location);
    sendJson(res, 201, { face_id: faceId, location });
  };

  const removeFace: Handler = async (_req, res, client, _body, [collectionId, faceId]) => {
    collections.removeFace(client, collectionId, faceId);
    sendEmpty(res, 204);
  };

  const routes: Route[] = [
    { method: 'POST', pattern: /^\/v1\/detect_humans$/, endpoint: 'detect_humans', run: detectHumans },
    { method: 'POST', pattern: /^\/v1\/detect_faces$/, endpoint: 'detect_faces', run: detectFaces },
    { method: 'POST', pattern: /^\/v1\/compare_faces$/, endpoint: 'compare_faces', run: compareTwo },
    { method: 'POST', pattern: new RegExp(`^/v1/compare_faces/${ID}$`), endpoint: 'compare_collection', run: compareCollection },
    { method: 'GET', pattern: /^\/v1\/face_collections$/, endpoint: 'collections', run: listCollections },
    { method: 'POST', pattern: /^\/v1\/face_collections$/, endpoint: 'collections', run: createCollection },
    { method: 'DELETE', pattern: new RegExp(`^/v1/face_collections/${ID}$`), endpoint: 'collections', run: deleteCollection },
    { method: 'GET', pattern: new RegExp(`^/v1/face_collections/${ID}/faces$`), endpoint: 'faces', run: listFaces },
    { method: 'POST', pattern: new RegExp(`^/v1/face_collections/${ID}/faces$`), endpoint: 'faces', run: addFace },
    { method: 'DELETE', pattern: new RegExp(`^/v1/face_collections/${ID}/faces/${ID}$`), endpoint: 'faces', run: removeFace },
  ];

  return {
    async handle(req, res, url, body) {
      const matching = routes.filter((r) => r.pattern.test(url.pathname));
      if (matching.length === 0) return false;
      const route = matching.find((r) => r.method === req.method);
      if (!route) {
        sendMessage(res, 405, 'Method Not Allowed', { allow: [...new Set(matching.map((r) => r.method))].join(', ') });
        return true;
      }
      const clientId = guard(tokens, req, res, 'vision');
      if (clientId === undefined) return true;
      if (await ctx.applyFaults(route.endpoint, res)) return true;
      const ids = (route.pattern.exec(url.pathname) ?? []).slice(1).map(safeDecode);
      try {
        await route.run(req, res, clientId, body, ids);
      } catch (err) {
        if (err instanceof VisionError) err.send(res);
        else throw err;
      }
      return true;
    },
    async reset() {
      collections.clear();
    },
    async close() {
      await fetcher.close();
    },
  };
}

/** Path segments are percent-decoded; a malformed escape is kept as is (and then matches no id). */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
