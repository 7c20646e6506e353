import { boxHeight, boxWidth, clipBox, type Box } from './geometry';

/** The compare API's face size rule: both sides of the detected face within these bounds. */
export const API_FACE_MIN = 120;
export const API_FACE_MAX = 280;

/** Settings of the crop rule. */
export interface CropRule {
  /** Context kept around the face on each side, as a share of the face's size (the service re-detects it). */
  margin: number;
  /** A face whose shorter side is below this many pixels is not scaled up (too blurry to compare). */
  minFaceSize: number;
  /** Face side the crop aims at, between API_FACE_MIN and API_FACE_MAX. */
  targetSide: number;
}

/** Defaults: the face lands near the middle of 120..280, so the service's own box may differ by a few pixels. */
export const DEFAULT_CROP_RULE: CropRule = { margin: 0.6, minFaceSize: 40, targetSide: 200 };

/**
 * The crops tried for one face, in order, when the service finds no face in the one before (its own
 * detector can miss a face in the crop of a compressed frame that it found in the whole frame).
 * Measured by `npm run bench:crop-retry` (faces of several photos through VP8 at 300 and 600 kbit/s):
 * much more context first, then a tighter and a larger face; the whole frame comes last.
 */
export const CROP_RETRIES: readonly Pick<CropRule, 'margin' | 'targetSide'>[] = [
  { margin: 1.5, targetSide: 140 },
  { margin: 0.3, targetSide: 250 },
  { margin: 0.6, targetSide: 260 },
];

/** True when a face can be compared in the whole frame as it is: both its sides already inside 120..280. */
export function fitsAsItIs(face: Box): boolean {
  const w = boxWidth(face);
  const h = boxHeight(face);
  return Math.min(w, h) >= API_FACE_MIN && Math.max(w, h) <= API_FACE_MAX;
}

/** What to cut out of the frame and the size to scale it to; or why not. */
export type CropPlan =
  | { ok: true; region: Box; width: number; height: number; scale: number }
  | { ok: false; reason: 'too_small' | 'bad_shape' };

/**
 * Plans the crop of one face: the face box plus a margin, clipped to the frame, scaled so that the
 * face's both sides fall inside 120..280 px (the compare API's rule).
 */
export function planCrop(face: Box, frame: { width: number; height: number }, rule: CropRule = DEFAULT_CROP_RULE): CropPlan {
  const w = boxWidth(face);
  const h = boxHeight(face);
  if (w <= 0 || h <= 0 || Math.min(w, h) < rule.minFaceSize) return { ok: false, reason: 'too_small' };
  // Scales that keep both sides in range: a face whose sides differ by more than 280/120 has none.
  const lo = API_FACE_MIN / Math.min(w, h);
  const hi = API_FACE_MAX / Math.max(w, h);
  if (lo > hi) return { ok: false, reason: 'bad_shape' };
  const scale = Math.min(hi, Math.max(lo, rule.targetSide / Math.sqrt(w * h)));
  const mx = w * rule.margin;
  const my = h * rule.margin;
  const region = clipBox({ left: face.left - mx, top: face.top - my, right: face.right + mx, bottom: face.bottom + my }, frame.width, frame.height);
  const rw = boxWidth(region);
  const rh = boxHeight(region);
  if (rw <= 0 || rh <= 0) return { ok: false, reason: 'too_small' };
  return { ok: true, region, width: Math.max(1, Math.round(rw * scale)), height: Math.max(1, Math.round(rh * scale)), scale };
}
