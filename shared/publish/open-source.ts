import path from 'node:path';
import { InputError } from '../errors';
import type { VideoCodec } from '../frames/types';
import { FfmpegNotFoundError, findFfmpeg, type FfmpegLookup } from '../media/ffmpeg';
import { FfmpegSource, ffmpegEncoders, type EncodeSettings } from './ffmpeg-source';
import { AnnexBFileSource, IvfFileSource } from './file-sources';
import type { VideoSource } from './source';
import { PublishError } from './errors';

/** What to publish and how. Exactly one of file, images, testPattern. */
export interface OpenSourceOptions extends FfmpegLookup, EncodeSettings {
  file?: string;
  /** Image sequence: printf pattern ('img/%04d.jpg') or glob ('img/*.png'); needs ffmpeg. */
  images?: string;
  testPattern?: boolean;
  /** Codec to encode to (default VP8); ignored when an .ivf/.h264 file is sent as it is. */
  codec?: VideoCodec;
  /** Re-encode even an .ivf/.h264 file that could be sent as it is (default false). */
  reencode?: boolean;
}

const ENCODER: Record<VideoCodec, string> = { VP8: 'libvpx', VP9: 'libvpx-vp9', H264: 'libx264' };
const CODECS: readonly VideoCodec[] = ['VP8', 'VP9', 'H264'];

/**
 * Picks a video source: an .ivf (VP8/VP9) or raw .h264 file goes out without re-encoding and
 * without ffmpeg; anything else is encoded by ffmpeg (found at run time). Throws a clear error
 * when neither applies.
 */
export async function openVideoSource(o: OpenSourceOptions): Promise<VideoSource> {
  checkSource(o);
  const file = nonEmpty(o.file);
  const images = nonEmpty(o.images);
  if (o.codec !== undefined && !CODECS.includes(o.codec)) throw new InputError('invalid_input', 'codec must be VP8, VP9 or H264', { field: 'codec', limit: 'VP8 | VP9 | H264' });
  checkPositiveInt('width', o.width, 4096);
  checkPositiveInt('height', o.height, 4096);
  checkPositiveInt('fps', o.fps, 120);
  checkPositiveInt('gop', o.gop, 1000);
  checkPositiveInt('keyFramePhases', o.keyFramePhases, 4);
  checkPositiveInt('bitRateKbps', o.bitRateKbps, 100_000);
  checkPositiveInt('maxFrames', o.maxFrames, Number.MAX_SAFE_INTEGER);
  const ext = file ? path.extname(file).toLowerCase() : '';
  const direct = ext === '.ivf' || ext === '.h264' || ext === '.264';
  if (file && direct && !o.reencode) {
    if (ext === '.ivf') {
      const src = new IvfFileSource(file, { loop: o.loop });
      await src.open();
      return src;
    }
    return new AnnexBFileSource(file, { loop: o.loop, fps: o.fps });
  }
  let ffmpegPath: string;
  try {
    ffmpegPath = await findFfmpeg(o);
  } catch (err) {
    if (err instanceof FfmpegNotFoundError) {
      throw FfmpegNotFoundError.from([
        ...err.tried,
        'without ffmpeg only an .ivf (VP8/VP9) or raw .h264 file can be published, as it is',
      ]);
    }
    throw err;
  }
  const codec = o.codec ?? 'VP8';
  const encoders = await ffmpegEncoders(ffmpegPath);
  if (!encoders.has(ENCODER[codec])) {
    throw new PublishError('encoder_missing', `the ffmpeg at hand has no ${ENCODER[codec]} encoder, needed for ${codec}`);
  }
  const input = file ? { file } : images ? { images } : { testPattern: true as const };
  return new FfmpegSource({ ffmpegPath, input, codec, ...pick(o) });
}

// An empty file or images string counts as not given (a form field left blank), never as a source.
function checkSource(o: OpenSourceOptions): void {
  if (!o || typeof o !== 'object') throw new InputError('invalid_input', 'openVideoSource needs an options object', { field: 'options', limit: 'an object' });
  for (const field of ['file', 'images'] as const) {
    const v = o[field];
    if (v !== undefined && typeof v !== 'string') throw new InputError('invalid_input', `${field} must be a path string`, { field, limit: 'a non-empty string' });
  }
  const given = (['file', 'images'] as const).filter((f) => nonEmpty(o[f]) !== undefined);
  const count = given.length + (o.testPattern === true ? 1 : 0);
  if (count === 1) return;
  const blank = (['file', 'images'] as const).find((f) => o[f] !== undefined && o[f]?.trim() === '');
  if (count === 0 && blank) {
    throw new InputError('invalid_input', `${blank} is empty: give a path, or use exactly one of file, images, testPattern`, { field: blank, limit: 'a non-empty string' });
  }
  throw new InputError('invalid_input', `give exactly one of file, images, testPattern (got ${count})`, { field: 'source', limit: 'exactly one' });
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v : undefined;
}

function pick(o: OpenSourceOptions): EncodeSettings {
  return { width: o.width, height: o.height, fps: o.fps, gop: o.gop, keyFramePhases: o.keyFramePhases, bitRateKbps: o.bitRateKbps, loop: o.loop, maxFrames: o.maxFrames };
}

function checkPositiveInt(field: string, v: number | undefined, max: number): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v <= 0 || v > max) throw new InputError('invalid_input', `${field} must be a whole number from 1 to ${max}`, { field, limit: `1..${max}` });
}
