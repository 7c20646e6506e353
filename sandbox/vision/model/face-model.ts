import { createHash } from 'node:crypto';
import { UnreadableImageError } from './decode';
import type { ModelReply } from './face-protocol';
import type { Box, Direction } from './geometry';
import { LruCache } from './lru';
import { modelThread } from './model-thread';
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
 * on the wasm backend, run in the process's worker thread (face-worker.ts, model-thread.ts) so the sandbox's event loop stays free
 * while an image is analysed. Runs one inference at a time and remembers results by image digest.
 */
export class FaceModel {
  readonly #cache: LruCache<string, ImageAnalysis>;
  readonly #queue = new SerialQueue();
  /** Rejections of the requests this model has in the thread, for close(). */
  readonly #held = new Set<(err: Error) => void>();
  #closed = false;
  #runs = 0;

  constructor(cacheEntries: number) {
    this.#cache = new LruCache(cacheEntries);
  }

  /** Starts the worker and loads the model now (otherwise the first analysis does). */
  async warmUp(): Promise<void> {
    unwrap(await this.#request({ type: 'load' }));
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

  /**
   * Ends this model's use of the thread (the sandbox stopped): its analyses still waiting fail, later
   * ones fail at once. The thread stays for the process's other sandboxes. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const held = [...this.#held];
    this.#held.clear();
    for (const fail of held) fail(new Error('The face model was closed (the sandbox stopped) before the image was analysed.'));
  }

  #request(...args: Parameters<ReturnType<typeof modelThread>['request']>): Promise<ModelReply> {
    if (this.#closed) return Promise.reject(new Error('The face model is closed (the sandbox stopped).'));
    return new Promise<ModelReply>((resolve, reject) => {
      this.#held.add(reject);
      modelThread()
        .request(...args)
        .then(resolve, reject)
        .finally(() => this.#held.delete(reject));
    });
  }

  async #infer(bytes: Buffer): Promise<ImageAnalysis> {
    // The worker gets a copy of its own (transferred, not cloned): the caller's buffer may be a pool slice.
    const copy = new Uint8Array(bytes);
    const reply = unwrap(await this.#request({ type: 'analyze', bytes: copy.buffer }, [copy.buffer]));
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
