import { UnreadableImageError } from './model/decode';
import type { FaceModel, FoundFace, ImageAnalysis } from './model/face-model';
import { VisionError } from './errors';
import { MAX_FACE_SIDE, MIN_FACE_SIDE } from './limits';

/** Runs the model on an image named `label`, turning undecodable bytes into a 400 invalid_image. */
export async function analyzeImage(model: FaceModel, bytes: Buffer, label: string): Promise<ImageAnalysis> {
  try {
    return await model.analyze(bytes);
  } catch (err) {
    if (err instanceof UnreadableImageError) {
      throw new VisionError(400, `The ${label} image could not be read: ${err.message}`, 'invalid_image');
    }
    throw err;
  }
}

/**
 * The face a comparison or an addition uses: the most confident one. It must exist (400 face_not_found)
 * and its detected box must be 120..280 px in both width and height (400 face_size_out_of_range).
 */
export function usableFace(analysis: ImageAnalysis, label: string): { face: FoundFace; descriptor: Float32Array } {
  const face = analysis.faces[0];
  if (!face || !analysis.bestDescriptor) {
    throw new VisionError(400, `No face was found in the ${label} image.`, 'face_not_found');
  }
  const width = Math.round(face.box.width);
  const height = Math.round(face.box.height);
  const fits = (side: number): boolean => side >= MIN_FACE_SIDE && side <= MAX_FACE_SIDE;
  if (!fits(width) || !fits(height)) {
    throw new VisionError(
      400,
      `The face in the ${label} image is ${width}x${height} pixels; faces must be from ` +
        `${MIN_FACE_SIDE}x${MIN_FACE_SIDE} to ${MAX_FACE_SIDE}x${MAX_FACE_SIDE} pixels.`,
      'face_size_out_of_range',
    );
  }
  return { face, descriptor: analysis.bestDescriptor };
}

/** A 0..1 score as the service renders it in collection results: a decimal string with 4 places. */
export function scoreText(score: number): string {
  return score.toFixed(4);
}

/** A 0..1 score as a JSON number, rounded to 4 places. */
export function scoreNumber(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
