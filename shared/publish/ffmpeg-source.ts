import { spawn, type ChildProcess } from 'node:child_process';
import { isKeyFrame } from '../frames/key-frame';
import { VIDEO_CLOCK, type VideoCodec } from '../frames/types';
import type { SourceFrame, VideoSource } from './source';
import { childEnv } from '../util/child-env';
import { PublishError } from './errors';
import { ffmpegStdio } from './ffmpeg-child';
import { KeyFramePhases, type KeyFramePhaseStats } from './key-frame-phases';
import { frameKeyFrames, phaseCount, phaseOutputs } from './phase-outputs';
import { encodedFrames, phaseStreams } from './phase-reading';

/** What ffmpeg reads. */
export type FfmpegInput =
  /** A video file (any format ffmpeg reads). */
  | { file: string }
  /** An image sequence: a printf pattern such as 'frames/%04d.jpg', or a glob such as 'shots/*.png'. */
  | { images: string }
  /** A synthetic test pattern (lavfi testsrc), handy for demos and tests. */
  | { testPattern: true };

/** How a source is encoded and paced; every field is optional. */
export interface EncodeSettings {
  width?: number;
  height?: number;
  /** Output frame rate (default 30). */
  fps?: number;
  /** Frames between key frames (default: fps, one per second). ffmpeg cannot honour PLI, so keep it short. */
  gop?: number;
  /**
   * Encodings run side by side with staggered key frames (default 1): a viewer's key-frame request is
   * answered within gop/N frames. Each one more is one more encoder's CPU.
   */
  keyFramePhases?: number;
  /** Target bit rate in kbps (default 800). */
  bitRateKbps?: number;
  /** Start the input again at its end (default false). */
  loop?: boolean;
  /** Stop after this many frames (default: the end of the input). */
  maxFrames?: number;
}

/** Encoder settings of an ffmpeg source. */
export interface FfmpegSourceOptions extends EncodeSettings {
  ffmpegPath: string;
  input: FfmpegInput;
  codec: VideoCodec;
}

/** Builds the ffmpeg command line; exported so its choices can be checked without running it. */
export function ffmpegArgs(o: FfmpegSourceOptions): string[] {
  const fps = o.fps ?? 30;
  const gop = o.gop ?? fps;
  const rate = `${o.bitRateKbps ?? 800}k`;
  const input: string[] = [];
  if ('file' in o.input) {
    input.push(...(o.loop ? ['-stream_loop', '-1'] : []), '-i', o.input.file);
  } else if ('images' in o.input) {
    const glob = /[*?[]/.test(o.input.images);
    input.push(...(o.loop ? ['-stream_loop', '-1'] : []), '-framerate', String(fps));
    input.push(...(glob ? ['-pattern_type', 'glob'] : []), '-f', 'image2', '-i', o.input.images);
  } else {
    input.push('-f', 'lavfi', '-i', `testsrc=size=${o.width ?? 640}x${o.height ?? 480}:rate=${fps}`);
  }
  const filters = [`fps=${fps}`];
  if (o.width && o.height) filters.push(`scale=${o.width}:${o.height}`);
  filters.push('format=yuv420p');
  const limit = o.maxFrames ? ['-frames:v', String(o.maxFrames)] : [];
  const encoder =
    o.codec === 'H264'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-sc_threshold', '0', '-f', 'h264']
      : [
          '-c:v',
          o.codec === 'VP8' ? 'libvpx' : 'libvpx-vp9',
          '-deadline',
          'realtime',
          '-cpu-used',
          '8',
          '-lag-in-frames',
          '0',
          '-auto-alt-ref',
          '0',
          '-f',
          'ivf',
        ];
  const phases = sourcePhases(o);
  const outputs = phaseOutputs(filters.join(','), phases, (i) => [...limit, ...frameKeyFrames(gop, i, phases), '-b:v', rate, ...encoder]);
  return ['-hide_banner', '-nostdin', '-loglevel', 'error', ...input, ...outputs];
}

/** How many outputs a source's ffmpeg writes (keyFramePhases, at most one per frame of the key-frame interval). */
function sourcePhases(o: FfmpegSourceOptions): number {
  return phaseCount(o.keyFramePhases, o.gop ?? o.fps ?? 30);
}

/** Encodes a file, an image sequence or a test pattern with ffmpeg and yields the frames as they come. */
export class FfmpegSource implements VideoSource {
  readonly codec: VideoCodec;
  #child?: ChildProcess;
  #closed = false;
  #exited?: Promise<void>;
  #stderrTail = '';
  readonly #options: FfmpegSourceOptions;
  readonly #phases: KeyFramePhases<Buffer>;

  constructor(options: FfmpegSourceOptions) {
    this.#options = options;
    this.codec = options.codec;
    this.#phases = new KeyFramePhases((data) => isKeyFrame(options.codec, data));
  }

  /** Key-frame requests received, and those answered by another phase's key frame. */
  get keyFrames(): KeyFramePhaseStats {
    return this.#phases.stats;
  }

  /** A viewer asked for a key frame: with key-frame phases, the next one any phase has is sent. */
  requestKeyFrame(): void {
    this.#phases.request();
  }

  /** Starts ffmpeg and yields its frames; one encoder per source, so a second call is refused. */
  async *frames(): AsyncIterable<SourceFrame> {
    if (this.#child) throw new PublishError('source_in_use', 'FfmpegSource.frames() was already called: a source runs one ffmpeg; open another source instead');
    if (this.#closed) return;
    const phases = sourcePhases(this.#options);
    const child = spawn(this.#options.ffmpegPath, ffmpegArgs(this.#options), { stdio: ffmpegStdio('ignore', phases), env: childEnv() });
    this.#child = child;
    const exitCode = new Promise<number | null>((resolve) => {
      child.once('close', (code) => resolve(code));
      child.once('error', (err) => {
        this.#stderrTail += err.message;
        resolve(-1);
      });
    });
    // 'close' waits for stdout to be read to its end; close() must not depend on a reader, so it waits for 'exit'.
    this.#exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    child.stderr?.on('data', (d: Buffer) => (this.#stderrTail = (this.#stderrTail + d.toString()).slice(-2000)));
    const step = VIDEO_CLOCK / (this.#options.fps ?? 30);
    const outputs = phaseStreams(child, phases).map((stream) => encodedFrames(stream, this.codec !== 'H264'));
    let n = 0;
    try {
      try {
        for await (const data of phases > 1 ? this.#phases.merge(outputs) : outputs[0]) {
          yield { data, timestamp: Math.round(n++ * step) };
          if (this.#closed) return;
        }
      } catch (err) {
        // close() discards unread output; the stream then ends early, which is no error.
        if (this.#closed) return;
        throw err;
      }
      const code = await exitCode;
      if (code !== 0 && !this.#closed) throw new PublishError('source_failed', `ffmpeg exited with code ${code}: ${this.#stderrTail.trim().slice(-500)}`);
    } finally {
      await this.close();
    }
  }

  /** Stops ffmpeg (SIGTERM, then SIGKILL after 2 s) and discards output nobody read. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await this.#exited;
      clearTimeout(killer);
    }
    for (const stream of child.stdio) stream?.destroy();
  }
}

/** Lists the encoders an ffmpeg binary has, to fail early when libvpx/libx264 is missing. */
export async function ffmpegEncoders(ffmpegPath: string): Promise<Set<string>> {
  const child = spawn(ffmpegPath, ['-hide_banner', '-encoders'], { stdio: ['ignore', 'pipe', 'ignore'], env: childEnv() });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve());
  });
  const names = out
    .split('\n')
    .map((l) => /^\s*V\S*\s+(\S+)/.exec(l)?.[1])
    .filter((x): x is string => !!x);
  return new Set(names);
}
