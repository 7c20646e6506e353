import path from 'node:path';
import { AccessUnitSplitter, IvfReader, parseVp8Frame, parseVp9Frame, type EncodedFrame, type VideoCodec } from '../../../shared/frames';
import { runFfmpeg } from '../../streaming/support/ffmpeg';

export const ASTRONAUT = path.join(__dirname, '../../fixtures/astronaut.jpg');

/** A clip's encoded frames and, for each, the I420 picture the encoder was given. */
export interface Clip {
  frames: EncodedFrame[];
  /** The source pictures (I420, tightly packed), for resemblance checks. */
  source: Uint8Array[];
  width: number;
  height: number;
}

const ENCODER: Record<VideoCodec, string[]> = {
  VP8: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1500k', '-f', 'ivf'],
  VP9: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1500k', '-f', 'ivf'],
  H264: ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-f', 'h264'],
};

/**
 * Encodes `frames` frames of the astronaut photo panning slowly across a 640x480 frame (so frames
 * differ), with the dev ffmpeg, and splits the result into EncodedFrames as the receiver would.
 */
export async function astronautClip(codec: VideoCodec, frames = 20, width = 640, height = 480, gop = 10): Promise<Clip> {
  // Scaled up then cropped with an offset that moves 4 px a frame: every frame is a different picture.
  const filter = `scale=${width + 200}:${height + 200},crop=${width}:${height}:'4*n':'2*n',format=yuv420p`;
  const input = ['-loop', '1', '-framerate', '15', '-i', ASTRONAUT, '-vf', filter, '-frames:v', String(frames)];
  const raw = await runFfmpeg(['-v', 'error', ...input, '-f', 'rawvideo', 'pipe:1']);
  if (raw.code !== 0) throw new Error(`ffmpeg raw failed: ${raw.stderr}`);
  const enc = await runFfmpeg(['-v', 'error', ...input, '-pix_fmt', 'yuv420p', '-g', String(gop), '-keyint_min', String(gop), ...ENCODER[codec], 'pipe:1']);
  if (enc.code !== 0) throw new Error(`ffmpeg encode failed: ${enc.stderr}`);
  const size = (width * height * 3) / 2;
  const source: Uint8Array[] = [];
  for (let i = 0; i + size <= raw.stdout.length; i += size) source.push(new Uint8Array(raw.stdout.subarray(i, i + size)));
  return { frames: splitFrames(codec, enc.stdout, width, height), source, width, height };
}

/** Splits an IVF (VP8/VP9) or Annex-B (H264) stream into EncodedFrames with 15 fps RTP timestamps. */
export function splitFrames(codec: VideoCodec, stream: Buffer, width: number, height: number): EncodedFrame[] {
  const units: Buffer[] =
    codec === 'H264'
      ? (() => {
          const s = new AccessUnitSplitter();
          return [...s.push(stream), ...s.flush()];
        })()
      : new IvfReader().push(stream).map((f) => f.data);
  return units.map((data, i) => ({
    codec,
    data,
    isKeyframe: codec === 'VP8' ? parseVp8Frame(data).isKeyframe : codec === 'VP9' ? parseVp9Frame(data).isKeyframe : hasIdr(data),
    timestamp: 90000 + i * 6000,
    width,
    height,
  }));
}

function hasIdr(au: Buffer): boolean {
  for (let i = 0; i + 3 < au.length; i++) {
    if (au[i] === 0 && au[i + 1] === 0 && au[i + 2] === 1 && (au[i + 3] & 0x1f) === 5) return true;
  }
  return false;
}
