import { createHash } from 'node:crypto';
import { decodeImage } from './decode';
import { type Box, type Direction, directionOf, yawIndex } from './geometry';
import { LruCache } from './lru';
import { SerialQueue } from './serial-queue';
import { type FaceApi, loadFaceApi } from './tfjs-runtime';

/** One face the model found. */
export interface FoundFace {
  box: Box;
  /** Detector confidence, 0..1. */
  score: number;
  yaw: number;
  direction: Direction;
}

/** Everything the service needs from one image. */
export interface ImageAnalysis {
  width: number;
  height: number;
  /** Faces, highest detection confidence first. */
  faces: FoundFace[];
  /** 128-d descriptor of faces[0] (the face comparisons use); absent when no face was found. */
  bestDescriptor?: Float32Array;
}

/** Tiny face detector settings: chosen for speed on one core (see bench/sandbox.bench.ts). */
export const DETECTOR = { inputSize: 416, scoreThreshold: 0.5 } as const;

/**
 * The face model behind the vision endpoints: face-api (tiny detector, 68 landmarks, recognition net)
 * on the wasm backend. Loads lazily, runs one inference at a time, and remembers results by image digest.
 */
export class FaceModel {
  readonly #cache: LruCache<string, ImageAnalysis>;
  readonly #queue = new SerialQueue();
  #runs = 0;

  constructor(cacheEntries: number) {
    this.#cache = new LruCache(cacheEntries);
  }

  /** Loads the model now (otherwise the first analysis does). */
  async warmUp(): Promise<void> {
    await loadFaceApi();
  }

  /** How many images really went through the model (cache hits excluded). */
  get inferenceCount(): number {
    return this.#runs;
  }

  /** Analyses JPEG/PNG bytes; throws UnreadableImageError for bytes that do not decode. */
  async analyze(bytes: Buffer): Promise<ImageAnalysis> {
    const digest = createHash('sha256').update(bytes).digest('hex');
    const cached = this.#cache.get(digest);
    if (cached) return cached;
    const result = await this.#queue.run(async () => {
      const again = this.#cache.get(digest);
      if (again) return again;
      const analysis = await this.#infer(bytes);
      this.#cache.set(digest, analysis);
      return analysis;
    });
    return result;
  }

  /** Forgets cached results. */
  clearCache(): void {
    this.#cache.clear();
  }

  async #infer(bytes: Buffer): Promise<ImageAnalysis> {
    const image = decodeImage(bytes);
    const faceapi: FaceApi = await loadFaceApi();
    this.#runs += 1;
    const tensor = faceapi.tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    try {
      const options = new faceapi.TinyFaceDetectorOptions(DETECTOR);
      const found: FaceApiResult[] = await faceapi.detectAllFaces(tensor, options).withFaceLandmarks();
      found.sort((a, b) => b.detection.score - a.detection.score);
      const faces = found.map((f): FoundFace => {
        const yaw = yawIndex(f.landmarks.positions);
        const { x, y, width, height } = f.detection.box;
        return { box: { x, y, width, height }, score: f.detection.score, yaw, direction: directionOf(yaw) };
      });
      const bestDescriptor = found.length > 0 ? await describe(faceapi, tensor, found[0]) : undefined;
      return { width: image.width, height: image.height, faces, bestDescriptor };
    } finally {
      tensor.dispose();
    }
  }
}

interface FaceApiResult {
  detection: { score: number; box: Box };
  landmarks: { positions: { x: number; y: number }[] };
  alignedRect: unknown;
}

/** Descriptor of one face, computed on its landmark-aligned crop as face-api's own pipeline does. */
async function describe(faceapi: FaceApi, tensor: unknown, face: FaceApiResult): Promise<Float32Array> {
  const crops = await faceapi.extractFaceTensors(tensor, [face.alignedRect]);
  try {
    return (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crops[0])) as Float32Array;
  } finally {
    for (const crop of crops) crop.dispose();
  }
}
