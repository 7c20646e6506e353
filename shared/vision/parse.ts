import { ApiError } from '../errors';
import type {
  AddedFace,
  CollectionCompareResult,
  CollectionFace,
  CompareResult,
  DetectedFace,
  DetectedHuman,
  FaceCollection,
  FaceDirection,
  Location,
} from './types';

type Json = Record<string, unknown>;

/**
 * Maps service bodies to typed results. A body of the wrong shape is an error (not an empty
 * result): silently returning "no faces" would make a broken deployment look like empty images.
 */
class Reader {
  constructor(readonly operation: string) {}

  fail(what: string): never {
    throw ApiError.from({
      operation: this.operation,
      status: 200,
      serviceMessage: what,
      code: 'invalid_response',
      retryable: false,
      message: `${this.operation} failed: unexpected response from the service (${what})`,
    });
  }

  object(value: unknown, what: string): Json {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(`${what} is not an object`);
    return value as Json;
  }

  array(value: unknown, what: string): unknown[] {
    if (!Array.isArray(value)) this.fail(`${what} is not an array`);
    return value;
  }

  /** Numbers may arrive as decimal strings (collection scores do). */
  number(value: unknown, what: string): number {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) this.fail(`${what} is not a number`);
    return n;
  }

  text(value: unknown, what: string): string {
    if (typeof value !== 'string' || value === '') this.fail(`${what} is not a non-empty string`);
    return value;
  }

  location(value: unknown, what: string): Location {
    const loc = this.object(value, what);
    return {
      left: this.number(loc.left, `${what}.left`),
      top: this.number(loc.top, `${what}.top`),
      right: this.number(loc.right, `${what}.right`),
      bottom: this.number(loc.bottom, `${what}.bottom`),
    };
  }
}

const DIRECTIONS = new Set<string>(['front', 'left', 'right']);

/** `{humans: [...]}` */
export function parseHumans(body: unknown, operation: string): DetectedHuman[] {
  const r = new Reader(operation);
  return r.array(r.object(body, 'body').humans, 'humans').map((item, i) => {
    const h = r.object(item, `humans[${i}]`);
    return { score: r.number(h.score, `humans[${i}].score`), location: r.location(h.location, `humans[${i}].location`) };
  });
}

/** `{faces: [...]}` with a direction per face. */
export function parseFaces(body: unknown, operation: string): DetectedFace[] {
  const r = new Reader(operation);
  return r.array(r.object(body, 'body').faces, 'faces').map((item, i) => {
    const f = r.object(item, `faces[${i}]`);
    const direction = r.text(f.direction, `faces[${i}].direction`);
    if (!DIRECTIONS.has(direction)) r.fail(`faces[${i}].direction "${direction}" is not front, left or right`);
    return { direction: direction as FaceDirection, location: r.location(f.location, `faces[${i}].location`) };
  });
}

/** Two-image comparison. */
export function parseCompare(body: unknown, operation: string): CompareResult {
  const r = new Reader(operation);
  const b = r.object(body, 'body');
  return {
    score: r.number(b.score, 'score'),
    source: { location: r.location(r.object(b.source, 'source').location, 'source.location') },
    target: { location: r.location(r.object(b.target, 'target').location, 'target.location') },
  };
}

/** Collection comparison; scores parsed and sorted most similar first (ties keep service order). */
export function parseCollectionCompare(body: unknown, operation: string): CollectionCompareResult {
  const r = new Reader(operation);
  const b = r.object(body, 'body');
  const target = r.object(b.target, 'target');
  const faces = r.array(target.faces, 'target.faces').map((item, i) => {
    const f = r.object(item, `target.faces[${i}]`);
    return { faceId: r.text(f.face_id, `target.faces[${i}].face_id`), score: r.number(f.score, `target.faces[${i}].score`) };
  });
  faces.sort((a, b2) => b2.score - a.score);
  return {
    source: { location: r.location(r.object(b.source, 'source').location, 'source.location') },
    target: { collectionId: r.text(target.collection_id, 'target.collection_id'), faces },
  };
}

/** `{face_collections: [{collection_id}]}` */
export function parseCollections(body: unknown, operation: string): FaceCollection[] {
  return idList(body, operation, 'face_collections', 'collection_id').map((collectionId) => ({ collectionId }));
}

/** `{collection_id}` */
export function parseCreatedCollection(body: unknown, operation: string): FaceCollection {
  const r = new Reader(operation);
  return { collectionId: r.text(r.object(body, 'body').collection_id, 'collection_id') };
}

/** `{faces: [{face_id}]}` */
export function parseCollectionFaces(body: unknown, operation: string): CollectionFace[] {
  return idList(body, operation, 'faces', 'face_id').map((faceId) => ({ faceId }));
}

/** The ids of a `{list: [{id}]}` body, each checked and named in errors by its path (`faces[2].face_id`). */
function idList(body: unknown, operation: string, list: string, id: string): string[] {
  const r = new Reader(operation);
  return r.array(r.object(body, 'body')[list], list).map((item, i) => r.text(r.object(item, `${list}[${i}]`)[id], `${list}[${i}].${id}`));
}

/** `{face_id, location}` */
export function parseAddedFace(body: unknown, operation: string): AddedFace {
  const r = new Reader(operation);
  const b = r.object(body, 'body');
  return { faceId: r.text(b.face_id, 'face_id'), location: r.location(b.location, 'location') };
}
