import { BufferTarget, EncodedPacket, EncodedVideoPacketSource, Mp4OutputFormat, Output, WebMOutputFormat } from 'mediabunny';
import { NAL, nalType, splitAnnexB } from '../frames/annexb';
import { VIDEO_CLOCK, type EncodedFrame, type VideoCodec } from '../frames/types';

/** The container a codec's clips are written in: WebM for VP8/VP9, MP4 for H.264 (what browsers play of each). */
export type ClipContainer = 'webm' | 'mp4';

/** A muxed clip, in memory. */
export interface MuxedClip {
  data: Buffer;
  container: ClipContainer;
  codec: VideoCodec;
  /** From the first frame's time to the end of the last frame, seconds (the stream's RTP times). */
  durationS: number;
  width?: number;
  height?: number;
}

/** A last frame's length when it cannot be told from the one before it (one frame at 30/s). */
const LAST_FRAME_S = 1 / 30;

/** The container a codec is written in. */
export function containerOf(codec: VideoCodec): ClipContainer {
  return codec === 'H264' ? 'mp4' : 'webm';
}

/**
 * Writes encoded frames into a WebM (VP8, VP9) or MP4 (H.264) file in memory, as they are: nothing is
 * decoded or encoded. The frames start on a key frame and share one codec and picture size; their
 * times are the stream's (RTP), counted from the first frame.
 */
export async function muxClip(frames: readonly EncodedFrame[]): Promise<MuxedClip> {
  const first = frames[0];
  if (!first?.isKeyframe) throw new Error('a clip starts on a key frame');
  const codec = first.codec;
  const output = new Output({ format: codec === 'H264' ? new Mp4OutputFormat({ fastStart: 'in-memory' }) : new WebMOutputFormat(), target: new BufferTarget() });
  const source = new EncodedVideoPacketSource(codec === 'H264' ? 'avc' : codec === 'VP9' ? 'vp9' : 'vp8');
  output.addVideoTrack(source);
  await output.start();
  const t0 = first.timestamp;
  const seconds = (f: EncodedFrame): number => (f.timestamp - t0) / VIDEO_CLOCK;
  let end = 0;
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i];
    const at = seconds(f);
    const next = frames[i + 1];
    const length = next ? Math.max(0, seconds(next) - at) : i > 0 ? Math.max(0, at - seconds(frames[i - 1])) || LAST_FRAME_S : LAST_FRAME_S;
    end = at + length;
    const packet = new EncodedPacket(f.data, f.isKeyframe ? 'key' : 'delta', at, length);
    if (i === 0) {
      await source.add(packet, { decoderConfig: { codec: codecString(f), codedWidth: f.width ?? 0, codedHeight: f.height ?? 0 } });
    } else {
      await source.add(packet);
    }
  }
  await output.finalize();
  const buffer = (output.target as BufferTarget).buffer;
  if (!buffer) throw new Error('the muxer gave no file');
  return { data: Buffer.from(buffer), container: containerOf(codec), codec, durationS: Math.round(end * 1000) / 1000, width: first.width, height: first.height };
}

/** The WebCodecs codec string of a clip's first frame (H.264: profile and level from its SPS). */
function codecString(f: EncodedFrame): string {
  if (f.codec === 'VP8') return 'vp8';
  if (f.codec === 'VP9') return 'vp09.00.10.08';
  const sps = splitAnnexB(f.data).find((u) => nalType(u) === NAL.sps);
  if (!sps || sps.length < 4) return 'avc1.42e01f';
  return `avc1.${[sps[1], sps[2], sps[3]].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
