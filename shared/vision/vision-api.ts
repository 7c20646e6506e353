import { InputError, ClientError } from '../errors';
import { HttpCore, type HttpCoreParts, type HttpRequest } from '../http/http-core';
import { callSignal } from '../util/call-options';
import { resolveImage, type ImageInput, type ResolvedImage } from '../image/input';
import { IMAGE_LIMIT_TEXT, MAX_IMAGE_BYTES } from '../image/limits';
import {
  parseAddedFace,
  parseCollectionCompare,
  parseCollectionFaces,
  parseCollections,
  parseCompare,
  parseCreatedCollection,
  parseFaces,
  parseHumans,
} from './parse';
import type {
  AddedFace,
  CallOptions,
  CollectionCompareResult,
  CollectionFace,
  CompareResult,
  CompareWithCollectionOptions,
  DetectedFace,
  DetectedHuman,
  FaceCollection,
} from './types';
import { checkMaxResults, pathId } from './validate';

/**
 * Fetches an image URL as checked bytes, at most `maxBytes` (a comparison that mixes a URL with
 * bytes sends two files: the service takes two files or two URLs, never one of each).
 */
export type ImageDownloader = (url: string, field: string, maxBytes: number, signal: AbortSignal | undefined, operation: string) => Promise<ResolvedImage & { kind: 'bytes' }>;

/** What the operations need from their surroundings: the address, how requests go out, how to wait, how to download. */
export interface VisionApiParts extends HttpCoreParts {
  /** Base address of the vision service (a trailing /v1 is accepted). */
  visionUrl: string;
  download: ImageDownloader;
}

/** Scopes of the calls: collections go with comparison. */
const SCOPE = {
  detectHumans: 'ips.api.ricoh/v1/detect_humans',
  detectFaces: 'ips.api.ricoh/v1/detect_faces',
  compare: 'ips.api.ricoh/v1/compare_faces',
} as const;

/** Multipart file names by type; the service reads the part's content type, the name is cosmetic. */
const FILE_NAMES = { 'image/jpeg': 'image.jpg', 'image/png': 'image.png' } as const;

/**
 * One method per endpoint of the Visual Recognition API: validation, requests, retries, parsing
 * and error mapping, over whatever transport it is given. It uses nothing but the language's own
 * objects (no undici, no timers, no files), so hosts that forbid dependencies can run it as it is;
 * VisionClient wires it to undici and a token source.
 */
export class VisionApi {
  readonly #http: HttpCore;
  readonly #download: ImageDownloader;
  #closed?: Promise<void>;

  constructor(parts: VisionApiParts) {
    if (!parts || typeof parts !== 'object') throw new InputError('invalid_input', 'VisionApi needs options', { field: 'options', limit: 'object' });
    this.#http = new HttpCore({
      baseUrl: parts.visionUrl,
      baseUrlField: 'visionUrl',
      tokens: parts.tokens,
      transport: parts.transport,
      hostTransport: parts.hostTransport,
      sleep: parts.sleep,
      sendApiKey: true,
      retry: parts.retry,
      timeoutMs: parts.timeoutMs,
      ownedTokens: parts.ownedTokens,
    });
    this.#download = parts.download;
  }

  /** Finds human heads (also from behind). */
  async detectHumans(image: ImageInput, options: CallOptions = {}): Promise<DetectedHuman[]> {
    const body = await this.#call(detectionRequest('detectHumans', '/v1/detect_humans', resolveImage(image, 'image')), options, SCOPE.detectHumans);
    return parseHumans(body, 'detectHumans');
  }

  /** Finds faces and the direction each looks in. */
  async detectFaces(image: ImageInput, options: CallOptions = {}): Promise<DetectedFace[]> {
    const body = await this.#call(detectionRequest('detectFaces', '/v1/detect_faces', resolveImage(image, 'image')), options, SCOPE.detectFaces);
    return parseFaces(body, 'detectFaces');
  }

  /** Similarity of the most confident face in `source` and in `target`. */
  async compareFaces(source: ImageInput, target: ImageInput, options: CallOptions = {}): Promise<CompareResult> {
    let s = resolveImage(source, 'source');
    let t = resolveImage(target, 'target');
    const operation = 'compareFaces';
    if (s.kind === 'url' && t.kind === 'url') {
      return parseCompare(await this.#call({ method: 'POST', path: '/v1/compare_faces', json: { source: s.url, target: t.url }, operation }, options), operation);
    }
    // The service takes two files or two URLs; a mixed pair is completed by downloading the URL.
    this.#http.checkScope(SCOPE.compare, operation);
    const signal = callSignal(options);
    if (s.kind === 'url' && t.kind === 'bytes') s = await this.#fetchImage(s.url, 'source', t.bytes.length, signal, operation);
    if (t.kind === 'url' && s.kind === 'bytes') t = await this.#fetchImage(t.url, 'target', s.bytes.length, signal, operation);
    if (s.kind !== 'bytes' || t.kind !== 'bytes') throw new ClientError('internal', `${operation}: internal error, an image is still a URL`);
    checkTotal(s.bytes.length + t.bytes.length);
    const form = new FormData();
    appendFile(form, 'source', s);
    appendFile(form, 'target', t);
    return parseCompare(await this.#call({ method: 'POST', path: '/v1/compare_faces', body: form, operation }, options), operation);
  }

  /** Similarity of the face in `image` to the faces of a collection, most similar first. */
  async compareWithCollection(collectionId: string, image: ImageInput, options: CompareWithCollectionOptions = {}): Promise<CollectionCompareResult> {
    const id = pathId(collectionId, 'collectionId');
    // When omitted, max_results is not sent: the service applies its documented default of 10.
    if (options === null || typeof options !== 'object') throw new InputError('invalid_input', 'options must be an object', { field: 'options', limit: '{ maxResults?, signal? }' });
    const maxResults = checkMaxResults(options.maxResults);
    const img = resolveImage(image, 'image');
    const operation = 'compareWithCollection';
    const base = { method: 'POST' as const, path: `/v1/compare_faces/${id}`, operation, notFoundHint: `collectionId "${collectionId}" does not exist` };
    let req: HttpRequest;
    if (img.kind === 'url') {
      req = { ...base, json: maxResults === undefined ? { image: img.url } : { image: img.url, max_results: maxResults } };
    } else {
      const form = new FormData();
      appendFile(form, 'image', img);
      if (maxResults !== undefined) form.append('max_results', String(maxResults));
      req = { ...base, body: form };
    }
    return parseCollectionCompare(await this.#call(req, options), operation);
  }

  /** Collections of this client. */
  async listCollections(options: CallOptions = {}): Promise<FaceCollection[]> {
    const operation = 'listCollections';
    return parseCollections(await this.#call({ method: 'GET', path: '/v1/face_collections', headers: JSON_TYPE, operation }, options), operation);
  }

  /**
   * Creates an empty collection. Not retried after a 5xx or a reset: the service may have created
   * it already, and a second one would use up the per-client collection limit (1 in beta).
   */
  async createCollection(options: CallOptions = {}): Promise<FaceCollection> {
    const operation = 'createCollection';
    const body = await this.#call({ method: 'POST', path: '/v1/face_collections', headers: JSON_TYPE, operation, idempotent: false }, options);
    return parseCreatedCollection(body, operation);
  }

  /** Deletes a collection and all its faces. */
  async deleteCollection(collectionId: string, options: CallOptions = {}): Promise<void> {
    const id = pathId(collectionId, 'collectionId');
    await this.#call({
      method: 'DELETE',
      path: `/v1/face_collections/${id}`,
      headers: JSON_TYPE,
      operation: 'deleteCollection',
      expect: 'empty',
      notFoundHint: `collectionId "${collectionId}" does not exist`,
    }, options);
  }

  /** Faces stored in a collection. */
  async listFaces(collectionId: string, options: CallOptions = {}): Promise<CollectionFace[]> {
    const id = pathId(collectionId, 'collectionId');
    const operation = 'listFaces';
    const body = await this.#call({
      method: 'GET',
      path: `/v1/face_collections/${id}/faces`,
      headers: JSON_TYPE,
      operation,
      notFoundHint: `collectionId "${collectionId}" does not exist`,
    }, options);
    return parseCollectionFaces(body, operation);
  }

  /**
   * Adds the most confident face of `image` to a collection. Like createCollection it is not
   * retried once the service may have acted: a repeat would store the same face twice.
   */
  async addFace(collectionId: string, image: ImageInput, options: CallOptions = {}): Promise<AddedFace> {
    const id = pathId(collectionId, 'collectionId');
    const img = resolveImage(image, 'image');
    const operation = 'addFace';
    const base = {
      method: 'POST' as const,
      path: `/v1/face_collections/${id}/faces`,
      operation,
      idempotent: false,
      notFoundHint: `collectionId "${collectionId}" does not exist`,
    };
    let req: HttpRequest;
    if (img.kind === 'url') {
      req = { ...base, json: { image: img.url } };
    } else {
      const form = new FormData();
      appendFile(form, 'image', img);
      req = { ...base, body: form };
    }
    return parseAddedFace(await this.#call(req, options), operation);
  }

  /** Removes one face from a collection (DELETE, the defined method; spec rule 3). */
  async removeFace(collectionId: string, faceId: string, options: CallOptions = {}): Promise<void> {
    const cid = pathId(collectionId, 'collectionId');
    const fid = pathId(faceId, 'faceId');
    await this.#call({
      method: 'DELETE',
      path: `/v1/face_collections/${cid}/faces/${fid}`,
      headers: JSON_TYPE,
      operation: 'removeFace',
      expect: 'empty',
      notFoundHint: `collectionId "${collectionId}" or faceId "${faceId}" does not exist`,
    }, options);
  }

  /** Stops retries and refuses further calls. Safe to call twice. */
  close(): Promise<void> {
    this.#closed ??= this.#http.close();
    return this.#closed;
  }

  #call(req: HttpRequest, options: CallOptions, scope: string = SCOPE.compare): Promise<unknown> {
    return this.#http.request<unknown>({ ...req, scope, signal: callSignal(options) });
  }

  #fetchImage(url: string, field: string, otherBytes: number, signal: AbortSignal | undefined, operation: string): Promise<ResolvedImage & { kind: 'bytes' }> {
    return this.#download(url, field, MAX_IMAGE_BYTES - otherBytes, signal, operation);
  }
}

/** Spec rule 2: list, create and delete calls carry Content-Type application/json even without a body. */
const JSON_TYPE = { 'content-type': 'application/json' } as const;

function detectionRequest(operation: string, path: string, img: ResolvedImage): HttpRequest {
  if (img.kind === 'url') return { method: 'POST', path, json: { image: img.url }, operation };
  return { method: 'POST', path, body: img.bytes, headers: { 'content-type': img.mime }, operation };
}

function appendFile(form: FormData, name: string, img: ResolvedImage & { kind: 'bytes' }): void {
  form.append(name, new Blob([new Uint8Array(img.bytes)], { type: img.mime }), FILE_NAMES[img.mime]);
}

function checkTotal(total: number): void {
  if (total >= MAX_IMAGE_BYTES) {
    throw new InputError('invalid_input', `source and target together are ${total} bytes; the service takes ${IMAGE_LIMIT_TEXT} in total`, { field: 'source+target', limit: `${IMAGE_LIMIT_TEXT} in total` });
  }
}
