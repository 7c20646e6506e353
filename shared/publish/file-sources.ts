import { createReadStream } from 'node:fs';
import { AccessUnitSplitter } from '../frames/access-units';
import { IvfReader } from '../frames/ivf';
import { VIDEO_CLOCK, type VideoCodec } from '../frames/types';
import type { SourceFrame, VideoSource } from './source';
import { PublishError } from './errors';

/** Options of a pre-encoded file source. */
export interface FileSourceOptions {
  /** Start again at the end of the file (default false). */
  loop?: boolean;
  /** Frame rate of a raw H264 file, which carries no timing (default 30). */
  fps?: number;
}

/**
 * Publishes an IVF (VP8/VP9) file as it is, without re-encoding: the fallback when no ffmpeg is
 * available. A looping file keeps its timestamps growing so receivers see one continuous stream.
 */
export class IvfFileSource implements VideoSource {
  codec: VideoCodec = 'VP8';
  readonly #reading: FileReading;

  constructor(file: string, options: FileSourceOptions = {}) {
    this.#reading = new FileReading(file, options);
  }

  /** Reads the header only, to learn the codec before publishing. */
  async open(): Promise<void> {
    const reader = new IvfReader();
    for await (const chunk of createReadStream(this.#reading.file, { start: 0, end: 31 })) {
      reader.push(chunk as Buffer);
    }
    if (!reader.header) throw new PublishError('source_failed', 'IVF file too short for its header');
    this.codec = reader.header.codec;
  }

  async *frames(): AsyncIterable<SourceFrame> {
    let offset = 0;
    let lastTs = 0;
    let step = VIDEO_CLOCK / 30;
    for await (const pass of this.#reading.passes()) {
      const reader = new IvfReader();
      let first: number | undefined;
      for await (const chunk of pass) {
        for (const f of reader.push(chunk)) {
          const h = reader.header!;
          const ts = Math.round((f.pts * h.timebaseNum * VIDEO_CLOCK) / h.timebaseDen);
          first ??= ts;
          const timestamp = offset + ts - first;
          if (timestamp > lastTs) step = timestamp - lastTs;
          lastTs = timestamp;
          yield { data: f.data, timestamp };
        }
      }
      if (this.#reading.closed) return;
      if (first === undefined) throw noFrames(this.#reading.file, 'IVF');
      offset = lastTs + step;
    }
  }

  async close(): Promise<void> {
    this.#reading.close();
  }
}

/** Publishes a raw H264 Annex-B file as it is; timing comes from the configured frame rate. */
export class AnnexBFileSource implements VideoSource {
  readonly codec: VideoCodec = 'H264';
  readonly #reading: FileReading;

  constructor(file: string, options: FileSourceOptions = {}) {
    this.#reading = new FileReading(file, options);
  }

  async *frames(): AsyncIterable<SourceFrame> {
    const step = VIDEO_CLOCK / (this.#reading.options.fps ?? 30);
    let n = 0;
    for await (const pass of this.#reading.passes()) {
      const splitter = new AccessUnitSplitter();
      const before = n;
      for await (const chunk of pass) {
        for (const au of splitter.push(chunk)) yield { data: au, timestamp: Math.round(n++ * step) };
      }
      if (this.#reading.closed) return;
      for (const au of splitter.flush()) yield { data: au, timestamp: Math.round(n++ * step) };
      if (n === before) throw noFrames(this.#reading.file, 'H264');
    }
  }

  async close(): Promise<void> {
    this.#reading.close();
  }
}

/** A file read from its start, again after each pass while `loop`, until closed: what both file sources read. */
class FileReading {
  readonly file: string;
  readonly options: FileSourceOptions;
  #closed = false;

  constructor(file: string, options: FileSourceOptions) {
    this.file = file;
    this.options = options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  /** One pass over the file per loop; each gives the file's chunks and ends early at close. */
  async *passes(): AsyncGenerator<AsyncIterable<Buffer>> {
    do {
      yield this.#chunks();
    } while (this.options.loop && !this.#closed);
  }

  async *#chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of createReadStream(this.file)) {
      if (this.#closed) return;
      yield chunk as Buffer;
    }
  }
}

// Looping over a file without a single frame would spin for ever without yielding anything.
function noFrames(file: string, kind: string): PublishError {
  return new PublishError('no_frames', `${kind} file ${JSON.stringify(file)} holds no frames`);
}
