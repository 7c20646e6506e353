import { createHash } from 'node:crypto';
import { UnreadableImageError } from './decode';
import type { ModelReply } from './face-protocol';
import type { Box, Direction } from './geometry';
import { LruCache } from './lru';
import { ModelThread } from './model-thread';
import { SerialQueue } from './serial-queue';

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

/**
 * The face model behind the vision endpoints: face-api (tiny detector, 68 landmarks, recognition net)
 * on the wasm backend, run in a worker thread (face-worker.ts) so the sandbox's event loop stays free
 * while an image is analysed. Runs one inference at a time and remembers results by image digest.
 */
export class FaceModel {
  readonly #cache: LruCache<string, ImageAnalysis>;
  readonly #queue = new SerialQueue();
  readonly #thread = new ModelThread();
  #runs = 0;

  constructor(cacheEntries: number) {
    this.#cache = new LruCache(cacheEntries);
  }

  /** Starts the worker and loads the model now (otherwise the first analysis does). */
  async warmUp(): Promise<void> {
    unwrap(await this.#thread.request({ type: 'load' }));
  }

  /** How many images really went through the model (cache hits and unreadable images excluded). */
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

  /** Ends the worker thread; analyses still waiting fail, later ones fail at once. Idempotent. */
  close(): Promise<void> {
    return this.#thread.close();
  }

  async #infer(bytes: Buffer): Promise<ImageAnalysis> {
    // The worker gets a copy of its own (transferred, not cloned): the caller's buffer may be a pool slice.
    const copy = new Uint8Array(bytes);
    const reply = unwrap(await this.#thread.request({ type: 'analyze', bytes: copy.buffer }, [copy.buffer]));
    if (!('faces' in reply)) throw new Error('The face model answered an analysis with something else.');
    this.#runs += 1;
    const { width, height, faces, bestDescriptor } = reply;
    return { width, height, faces, bestDescriptor };
  }
}

/** A successful reply, or the error the worker reported: UnreadableImageError for bytes that did not decode. */
function unwrap(reply: ModelReply): Extract<ModelReply, { ok: true }> {
  if (reply.ok) return reply;
  if (reply.kind === 'unreadable') throw new UnreadableImageError(reply.message);
  throw new Error(`The face model failed: ${reply.message}`);
}
