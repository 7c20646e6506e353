/** Ticks per second of a video frame's timestamp: RTP's video clock (RFC 3551), 90 kHz. */
export const VIDEO_CLOCK = 90_000;

/** Video codecs the streaming service negotiates. */
export type VideoCodec = 'VP8' | 'VP9' | 'H264';

/** One depacketized, encoded video frame as a decoder expects it. */
export interface EncodedFrame {
  codec: VideoCodec;
  /** VP8/VP9: one frame; H264: one Annex-B access unit (SPS/PPS prepended on keyframes). */
  data: Buffer;
  /** True only when a decoder can start from this frame alone. */
  isKeyframe: boolean;
  /** RTP timestamp (90 kHz clock), unwrapped past 2^32 so it only grows. */
  timestamp: number;
  /** Known from keyframes (VP8/VP9 frame header, H264 SPS); carried on later frames too. */
  width?: number;
  height?: number;
  /** Which received track the frame belongs to (set by the session). */
  trackId?: string;
  /** The msid stream id of the frame's stream: the publisher's client_id (set by the session). */
  streamId?: string;
}
