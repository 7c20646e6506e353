/** Results of the Visual Recognition API, with camelCase names and numbers parsed. */
import type { CallOptions } from '../util/call-options';

export type { CallOptions } from '../util/call-options';

/** Rectangular area of a detection, in the image's pixel coordinates. */
export interface Location {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** A head found by detectHumans. */
export interface DetectedHuman {
  /** Confidence from 0.1 to 1. */
  score: number;
  location: Location;
}

/** Where a detected face looks. */
export type FaceDirection = 'front' | 'left' | 'right';

/** A face found by detectFaces. */
export interface DetectedFace {
  direction: FaceDirection;
  location: Location;
}

/** Result of compareFaces. */
export interface CompareResult {
  /** Similarity from 0 to 1; higher is more alike. */
  score: number;
  source: { location: Location };
  target: { location: Location };
}

/** One face of a collection and how similar it is to the submitted face. */
export interface CollectionMatch {
  faceId: string;
  /** Similarity from 0 to 1 (the service sends it as a decimal string). */
  score: number;
}

/** Result of compareWithCollection; `target.faces` is sorted most similar first. */
export interface CollectionCompareResult {
  source: { location: Location };
  target: { collectionId: string; faces: CollectionMatch[] };
}

/** A face collection. */
export interface FaceCollection {
  collectionId: string;
}

/** A face stored in a collection. */
export interface CollectionFace {
  faceId: string;
}

/** Result of addFace. */
export interface AddedFace {
  faceId: string;
  /** Area of the face used, in the added image. */
  location: Location;
}

/** Options of compareWithCollection. */
export interface CompareWithCollectionOptions extends CallOptions {
  /** How many of the most similar faces to return, 1 to 1000 (service default 10). */
  maxResults?: number;
}

