/** Descriptor distance at which the score crosses 0.5; between measured same-person and different-person figures. */
export const MIDPOINT_DISTANCE = 0.5;
/** Width of the logistic step; smaller makes the score more decisive. */
export const STEEPNESS = 0.04;

/** Euclidean distance between two 128-d face descriptors. */
export function descriptorDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) {
    const d = a[i] - b[i];
    sum += d * d;
  }
  return Math.sqrt(sum);
}

/**
 * Similarity in 0..1 from a descriptor distance, through a logistic step centred on MIDPOINT_DISTANCE:
 * the same face (distance ~0.1-0.3) scores near 1, different people (~0.55 and beyond) near 0.
 */
export function similarityFromDistance(distance: number): number {
  return 1 / (1 + Math.exp((distance - MIDPOINT_DISTANCE) / STEEPNESS));
}
