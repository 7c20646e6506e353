import type { CameraInput } from './camera-url';
import { frameKeyFrames, phaseCount, phaseOutputs, timeKeyFrames } from './phase-outputs';

/** Codecs a camera is published in. */
export type CameraCodec = 'VP8' | 'H264';

/** How a camera's video is encoded (relay ignores all but the codec). */
export interface CameraEncoding {
  codec: CameraCodec;
  /** Output frame rate (default 10). */
  fps: number;
  /** Bit-rate cap in kbps (default 800). */
  bitRateKbps: number;
  /** Output size; for images (pushed, MJPEG, snapshots) it defaults to 640x480, else the camera's own size. */
  width?: number;
  height?: number;
  /**
   * Encodings run side by side with staggered key frames (default 1): a viewer's key-frame request
   * is answered within 1/N of the one-second interval. Each one more is one more encoder's CPU.
   */
  keyFramePhases?: number;
}

/**
 * What ffmpeg reads for one camera: everything before the output options. The RTSP URL goes on the
 * command line as it is, where every local user can read it: a camera with credentials is given
 * as its RtspAuthRelay's URL (the camera source does so).
 */
export function inputArgs(input: Exclude<CameraInput, { kind: 'push' } | { kind: 'http' } | { kind: 'file' }>, e: CameraEncoding): string[] {
  if (input.kind === 'rtsp') {
    // -fflags nobuffer: no probe buffering, frames leave as they come (latency).
    return ['-rtsp_transport', input.transport, '-fflags', 'nobuffer', '-i', input.url];
  }
  const size = e.width && e.height ? ['-video_size', `${e.width}x${e.height}`] : [];
  return ['-f', 'v4l2', '-framerate', String(e.fps), ...size, '-i', input.device];
}

/**
 * ffmpeg input options for pictures written to its stdin, each as a multipart part with its
 * Content-Length (see imagePart): the multipart reader passes a picture on as soon as it is whole,
 * where a bare JPEG/PNG pipe waits for the next picture to find the end of this one.
 */
export function imagePipeArgs(format: 'jpeg' | 'png'): string[] {
  return ['-probesize', '32', '-analyzeduration', '0', '-use_wallclock_as_timestamps', '1', '-f', 'mpjpeg', '-c:v', format === 'png' ? 'png' : 'mjpeg', '-i', 'pipe:0'];
}

/** One picture framed for imagePipeArgs' reader (its declared type is always image/jpeg; the decoder is chosen by format). */
export function imagePart(picture: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${picture.length}\r\n\r\n`), picture, Buffer.from('\r\n')]);
}

/**
 * Output options that send an H.264 camera's stream as it is: no decoding, no encoding; Annex-B
 * with the parameter sets the bitstream filter puts in front of key frames.
 */
export function relayArgs(): string[] {
  return ['-an', '-c:v', 'copy', '-bsf:v', 'h264_mp4toannexb', '-flush_packets', '1', '-f', 'h264', 'pipe:1'];
}

/**
 * Output options that encode: one key frame a second, the bit rate capped, low-latency settings.
 * `images`: the input is images at an irregular rate (pushed, MJPEG, snapshots), kept as they come
 * and scaled into a fixed frame, key frames forced by time rather than frame count. With
 * keyFramePhases above 1, one output per phase (see encodedPhases), the first on stdout.
 */
export function encodeArgs(e: CameraEncoding, images: boolean): string[] {
  const rate = `${e.bitRateKbps}k`;
  const filters: string[] = [];
  if (!images) filters.push(`fps=${e.fps}`);
  const w = e.width ?? (images ? 640 : undefined);
  const h = e.height ?? (images ? 480 : undefined);
  if (w && h) {
    // Letterboxed into the frame: an encoder cannot change size mid-stream, and images may differ.
    filters.push(images ? `scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2` : `scale=${w}:${h}`);
  }
  filters.push('format=yuv420p');
  const phases = encodedPhases(e);
  const keyframes = (i: number): string[] => (images ? timeKeyFrames(i, phases) : frameKeyFrames(e.fps, i, phases));
  const cap = ['-b:v', rate, '-maxrate', rate, '-bufsize', `${e.bitRateKbps * 2}k`];
  const codec =
    e.codec === 'H264'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-sc_threshold', '0', ...cap, '-flush_packets', '1', '-f', 'h264']
      : ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-lag-in-frames', '0', '-auto-alt-ref', '0', '-error-resilient', '1', ...cap, '-flush_packets', '1', '-f', 'ivf'];
  const sync = images ? ['-vsync', 'passthrough'] : [];
  return phaseOutputs(filters.join(','), phases, (i) => [...sync, ...keyframes(i), ...codec]);
}

/** How many outputs an encoding camera's ffmpeg writes (keyFramePhases, at most one per frame of the interval). */
export function encodedPhases(e: CameraEncoding): number {
  return phaseCount(e.keyFramePhases, e.fps);
}

/** The whole command line for an ffmpeg-read camera (RTSP or V4L2): relayed or encoded. */
export function cameraArgs(input: Exclude<CameraInput, { kind: 'push' } | { kind: 'http' } | { kind: 'file' }>, e: CameraEncoding, relay: boolean): string[] {
  return [...BASE, ...inputArgs(input, e), ...(relay ? relayArgs() : encodeArgs(e, false))];
}

/** The command line of the encoder fed with images on its stdin. */
export function imageEncoderArgs(format: 'jpeg' | 'png', e: CameraEncoding): string[] {
  return [...BASE, ...imagePipeArgs(format), ...encodeArgs(e, true)];
}

const BASE = ['-hide_banner', '-loglevel', 'error'];
