import type { AddedFace, CollectionCompareResult, CompareResult, DetectedFace, DetectedHuman, Location } from './types';

/** A box of a result, as drawn on its image: where, and the few words above it. */
export interface ResultBox {
  location: Location;
  label?: string;
}

/** The boxes every host draws for a result, with the same labels. */
export const resultBoxes = {
  /** Each face, labelled with the direction it looks in. */
  faces: (faces: readonly DetectedFace[]): ResultBox[] => faces.map((f) => ({ location: f.location, label: f.direction })),
  /** Each head, labelled with the detector's confidence. */
  humans: (humans: readonly DetectedHuman[]): ResultBox[] => humans.map((h) => ({ location: h.location, label: h.score.toFixed(2) })),
  /** The source face of a comparison, labelled with the similarity. */
  comparison: (result: CompareResult): ResultBox[] => [{ location: result.source.location, label: result.score.toFixed(2) }],
  /** The submitted face, labelled with the best face of the collection and its score. */
  collectionMatch: (result: CollectionCompareResult): ResultBox[] => {
    const best = result.target.faces[0];
    return [{ location: result.source.location, label: best ? `${best.faceId.slice(0, 8)} ${best.score.toFixed(2)}` : 'no match' }];
  },
  /** The face a collection took, labelled with the start of its new face_id. */
  addedFace: (added: AddedFace): ResultBox[] => [{ location: added.location, label: added.faceId.slice(0, 8) }],
};
