import { isKeyFrame } from '../frames/key-frame';
import type { VideoCodec } from '../frames/types';
import { InputError } from '../errors';
import { KeyFramePhases, type KeyFramePhaseStats } from './key-frame-phases';
import { framePacer } from './frame-pacer';
import type { SourceFrame, VideoSource } from './source';

/**
 * One stream from several encodings of the same pictures whose key frames are staggered (files the
 * same clip was encoded to with offset key frames, for example): a key-frame request is answered by
 * the first key frame any of them has. The sources become this one's: close() closes them all.
 */
export class StaggeredSource implements VideoSource {
  readonly codec: VideoCodec;
  readonly #sources: readonly VideoSource[];
  readonly #phases: KeyFramePhases<SourceFrame>;

  constructor(sources: readonly VideoSource[]) {
    if (!Array.isArray(sources) || sources.length === 0) throw new InputError('invalid_input', 'give at least one source', { field: 'sources', limit: '1 or more VideoSources' });
    const codec = sources[0].codec;
    if (sources.some((s) => s.codec !== codec)) throw new InputError('invalid_input', 'every source must have the same codec', { field: 'sources', limit: 'one codec' });
    this.codec = codec;
    this.#sources = sources;
    this.#phases = new KeyFramePhases((f) => isKeyFrame(codec, f.data));
  }

  /** Requests received and answered by another source's key frame. */
  get stats(): KeyFramePhaseStats {
    return this.#phases.stats;
  }

  frames(): AsyncIterable<SourceFrame> {
    const pace = framePacer();
    return this.#phases.merge(
      this.#sources.map((s) => s.frames()),
      (f) => pace(f.timestamp),
    );
  }

  requestKeyFrame(): void {
    this.#phases.request();
  }

  async close(): Promise<void> {
    await Promise.all(this.#sources.map((s) => s.close()));
  }
}
