import type { IDataObject } from 'n8n-workflow';
import type { CollectionCompareResult, CompareResult, DetectedFace, DetectedHuman, Location } from '../../shared/vision/types';

/** A box flattened for expressions: `{{ $json.faces[0].left }}`, with its size. */
export function box(location: Location): IDataObject {
  const { left, top, right, bottom } = location;
  return { left, top, right, bottom, width: right - left, height: bottom - top };
}

/** Detect faces, simplified: count and flat boxes. */
export function simpleFaces(faces: DetectedFace[]): IDataObject {
  return { count: faces.length, faces: faces.map((f) => ({ direction: f.direction, ...box(f.location) })) };
}

/** Detect humans, simplified: count and flat boxes with their score. */
export function simpleHumans(humans: DetectedHuman[]): IDataObject {
  return { count: humans.length, humans: humans.map((h) => ({ score: h.score, ...box(h.location) })) };
}

/** Compare, simplified: the score and both faces' boxes. */
export function simpleCompare(result: CompareResult): IDataObject {
  return { score: result.score, source: box(result.source.location), target: box(result.target.location) };
}

/** Compare with a collection, simplified: the best match on top, every match most similar first. */
export function simpleCollectionCompare(result: CollectionCompareResult): IDataObject {
  const matches = result.target.faces.map((f) => ({ faceId: f.faceId, score: f.score }));
  return {
    collectionId: result.target.collectionId,
    bestFaceId: matches[0]?.faceId ?? null,
    bestScore: matches[0]?.score ?? null,
    matches,
    source: box(result.source.location),
  };
}

/** Plain JSON copy (drops class instances and undefined) for n8n's item store. */
export function plain(value: unknown): IDataObject {
  return JSON.parse(JSON.stringify(value)) as IDataObject;
}
