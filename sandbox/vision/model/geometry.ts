/** A face box in image pixels, origin at the top-left corner. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The service's rectangle: integer pixel edges, origin top-left, right/bottom exclusive. */
export interface Location {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Which way a face looks, seen from the camera (image left / image right). */
export type Direction = 'front' | 'left' | 'right';

interface Point {
  x: number;
  y: number;
}

/** |yaw index| below this is "front"; chosen from measured frontal and turned faces (README.md). */
export const FRONT_LIMIT = 0.12;

/** Converts a box to the service's integer rectangle, clipped to the image. */
export function toLocation(box: Box, width: number, height: number): Location {
  return {
    left: clamp(Math.round(box.x), 0, width),
    top: clamp(Math.round(box.y), 0, height),
    right: clamp(Math.round(box.x + box.width), 0, width),
    bottom: clamp(Math.round(box.y + box.height), 0, height),
  };
}

/**
 * Yaw index from the 68-point landmarks: where the nose tip (point 30) falls between the two eye centres
 * (points 36-41 and 42-47), measured along the eye line so head tilt does not matter.
 * 0 = nose midway (frontal); negative = nose towards the image's left; about ±0.5 = nose over an eye.
 */
export function yawIndex(landmarks: readonly Point[]): number {
  const leftEye = centre(landmarks.slice(36, 42));
  const rightEye = centre(landmarks.slice(42, 48));
  const nose = landmarks[30];
  const axis = { x: rightEye.x - leftEye.x, y: rightEye.y - leftEye.y };
  const span = axis.x * axis.x + axis.y * axis.y;
  if (span === 0) return 0;
  return ((nose.x - leftEye.x) * axis.x + (nose.y - leftEye.y) * axis.y) / span - 0.5;
}

/**
 * Direction from the yaw index. "left" means the face is turned towards the left edge of the image
 * (the viewer's left, which is the person's own right); "right" the other way.
 */
export function directionOf(yaw: number): Direction {
  if (yaw <= -FRONT_LIMIT) return 'left';
  if (yaw >= FRONT_LIMIT) return 'right';
  return 'front';
}

/**
 * A head box grown from a face box: the detector's face box spans brows to chin, so the head reaches
 * further up (hair, crown) and a little to each side and below. Clipped to the image.
 */
export function headBox(face: Box, width: number, height: number): Box {
  const left = Math.max(0, face.x - face.width * 0.2);
  const right = Math.min(width, face.x + face.width * 1.2);
  const top = Math.max(0, face.y - face.height * 0.45);
  const bottom = Math.min(height, face.y + face.height * 1.1);
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Detection confidence mapped to the service's 0.1..1 range. */
export function headScore(detectionScore: number): number {
  return Math.round(clamp(detectionScore, 0.1, 1) * 10_000) / 10_000;
}

function centre(points: readonly Point[]): Point {
  const sum = points.reduce((acc, p) => ({ x: acc.x + p.x, y: acc.y + p.y }), { x: 0, y: 0 });
  return { x: sum.x / points.length, y: sum.y / points.length };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
