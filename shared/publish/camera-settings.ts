import { InputError } from '../errors';
import type { FfmpegLookup } from '../media/ffmpeg';
import type { CameraCodec } from './camera-args';
import { parseCameraSource, type CameraInput } from './camera-url';

// A camera's settings and their check, apart from the publisher: the command line checks every
// camera before it loads anything that publishes.

/** Settings of one camera's source and encoding. */
export interface CameraSettings extends FfmpegLookup {
  /** rtsp(s)://, http(s):// (MJPEG stream or JPEG/PNG snapshot), /dev/videoN, or a video file. Empty: pictures pushed with push(). */
  source?: string;
  /** VP8 (default: encoded) or H264 (an H.264 RTSP camera relayed as it is, anything else encoded to H.264 Baseline). */
  codec?: CameraCodec;
  /** Encode even an H.264 camera (default false). */
  reencode?: boolean;
  /** RTSP transport (default tcp). */
  transport?: 'tcp' | 'udp';
  /** Bit-rate cap of encoded video, in kbps (default 800). */
  bitRateKbps?: number;
  /** Frame rate of encoded video (default 10). */
  fps?: number;
  width?: number;
  height?: number;
  /** No frame for this long is a stall: the camera is reconnected (default 5 s). */
  stallSeconds?: number;
  /** Pictures per second read from a snapshot URL (default 2). */
  snapshotFps?: number;
  /** Longest wait between two attempts to reach a camera (default 30 s). */
  maxRetrySeconds?: number;
  /**
   * Encodings run side by side with staggered key frames (1 to 4, default 2): a viewer joining gets
   * its first picture within 1/N s instead of up to 1 s, for one more encoder's CPU each (an
   * encoder takes no key-frame request while it runs). Not for a camera relayed as it is.
   */
  keyFramePhases?: number;
}

/** The checked settings of a camera, before anything starts. */
export interface CheckedCamera {
  input: CameraInput;
  codec: CameraCodec;
  fps: number;
  bitRateKbps: number;
  width?: number;
  height?: number;
  stallMs: number;
  snapshotIntervalMs: number;
  maxRetryMs: number;
  keyFramePhases: number;
  relay: boolean;
}

/** Checks a camera's settings; throws an InputError naming the field. Starts nothing. */
export function checkCamera(o: CameraSettings): CheckedCamera {
  if (!o || typeof o !== 'object') throw new InputError('invalid_input', 'a camera needs an options object', { field: 'options', limit: 'an object' });
  const input = parseCameraSource(o.source, { transport: o.transport });
  if (o.transport !== undefined && input.kind !== 'rtsp') {
    if (o.transport !== 'tcp' && o.transport !== 'udp') throw new InputError('invalid_input', 'transport must be tcp or udp', { field: 'transport', limit: 'tcp | udp' });
  }
  const codec = o.codec ?? 'VP8';
  if (codec !== 'VP8' && codec !== 'H264') throw new InputError('invalid_input', `codec must be VP8 or H264 (got ${JSON.stringify(String(codec).slice(0, 20))})`, { field: 'codec', limit: 'VP8 | H264' });
  const int = (field: string, v: number | undefined, min: number, max: number, def?: number): number | undefined => {
    if (v === undefined) return def;
    if (!Number.isInteger(v) || v < min || v > max) throw new InputError('invalid_input', `${field} must be a whole number from ${min} to ${max}`, { field, limit: `${min}..${max}` });
    return v;
  };
  const num = (field: string, v: number | undefined, min: number, max: number, def: number): number => {
    if (v === undefined) return def;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new InputError('invalid_input', `${field} must be a number from ${min} to ${max}`, { field, limit: `${min}..${max}` });
    return v;
  };
  const width = int('width', o.width, 16, 4096);
  const height = int('height', o.height, 16, 4096);
  if ((width === undefined) !== (height === undefined)) throw new InputError('invalid_input', 'give both width and height, or neither', { field: width === undefined ? 'width' : 'height', limit: 'both or neither' });
  if ((width !== undefined && width % 2 !== 0) || (height !== undefined && height % 2 !== 0)) throw new InputError('invalid_input', 'width and height must be even', { field: width! % 2 ? 'width' : 'height', limit: 'even numbers' });
  return {
    input,
    codec,
    fps: int('fps', o.fps, 1, 60, 10)!,
    bitRateKbps: int('bitRateKbps', o.bitRateKbps, 50, 20_000, 800)!,
    width,
    height,
    stallMs: num('stallSeconds', o.stallSeconds, 1, 120, 5) * 1000,
    snapshotIntervalMs: 1000 / num('snapshotFps', o.snapshotFps, 0.05, 30, 2),
    maxRetryMs: num('maxRetrySeconds', o.maxRetrySeconds, 1, 30, 30) * 1000,
    keyFramePhases: int('keyFramePhases', o.keyFramePhases, 1, 4, 2)!,
    relay: codec === 'H264' && input.kind === 'rtsp' && o.reencode !== true,
  };
}
