import { randomUUID } from 'node:crypto';
import { VisionError, notFound } from './errors';
import type { Location } from './model/geometry';

/** A face stored in a collection: what comparisons need and what adding returned. */
export interface StoredFace {
  faceId: string;
  descriptor: Float32Array;
  location: Location;
}

interface Collection {
  clientId: string;
  faces: Map<string, StoredFace>;
}

/** Face collections per client, in memory, with the beta's collection limit and the per-collection face limit. */
export class CollectionStore {
  readonly #collections = new Map<string, Collection>();

  readonly #collectionLimit: number;
  readonly #facesPerCollection: number;

  constructor(collectionLimit: number, facesPerCollection: number) {
    this.#collectionLimit = collectionLimit;
    this.#facesPerCollection = facesPerCollection;
  }

  /** Ids of the client's collections, oldest first. */
  list(clientId: string): string[] {
    return [...this.#collections].filter(([, c]) => c.clientId === clientId).map(([id]) => id);
  }

  /** Creates an empty collection, unless the client already holds the allowed number. */
  create(clientId: string): string {
    if (this.list(clientId).length >= this.#collectionLimit) {
      throw new VisionError(
        400,
        `The number of face collections has reached the limit (${this.#collectionLimit}).`,
        'collection_limit_exceeded',
      );
    }
    const id = randomUUID();
    this.#collections.set(id, { clientId, faces: new Map() });
    return id;
  }

  /** Deletes a collection and its faces. */
  delete(clientId: string, collectionId: string): void {
    this.#get(clientId, collectionId);
    this.#collections.delete(collectionId);
  }

  /** The faces of a collection, in the order they were added. */
  faces(clientId: string, collectionId: string): StoredFace[] {
    return [...this.#get(clientId, collectionId).faces.values()];
  }

  /** Throws unless the collection can take one more face (checked before any model work). */
  assertRoom(clientId: string, collectionId: string): void {
    if (this.#get(clientId, collectionId).faces.size >= this.#facesPerCollection) {
      throw new VisionError(
        400,
        `The face collection has reached the limit of ${this.#facesPerCollection} faces.`,
        'face_limit_exceeded',
      );
    }
  }

  /** Stores a face and returns its new id. */
  addFace(clientId: string, collectionId: string, descriptor: Float32Array, location: Location): string {
    this.assertRoom(clientId, collectionId);
    const faceId = randomUUID();
    this.#get(clientId, collectionId).faces.set(faceId, { faceId, descriptor, location });
    return faceId;
  }

  /** Removes one face. */
  removeFace(clientId: string, collectionId: string, faceId: string): void {
    if (!this.#get(clientId, collectionId).faces.delete(faceId)) throw notFound();
  }

  /** Forgets everything. */
  clear(): void {
    this.#collections.clear();
  }

  /** A collection of this client; another client's collection is as unknown as a missing one. */
  #get(clientId: string, collectionId: string): Collection {
    const collection = this.#collections.get(collectionId);
    if (!collection || collection.clientId !== clientId) throw notFound();
    return collection;
  }
}
