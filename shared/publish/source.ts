import type { VideoCodec } from '../frames/types';

/** One encoded frame ready to be packetized. */
export interface SourceFrame {
  data: Buffer;
  /** Presentation time on the RTP 90 kHz clock (VIDEO_CLOCK in frames/types), starting near 0. */
  timestamp: number;
}

/** A stream of encoded video frames (a file or a live encoder). */
export interface VideoSource {
  readonly codec: VideoCodec;
  /** Frames in presentation order; ends when the source is exhausted (never, when looping). */
  frames(): AsyncIterable<SourceFrame>;
  /** Stops producing and releases files and child processes. Idempotent. */
  close(): Promise<void>;
  /** Asks for a key frame soon (a viewer joined, or lost a picture); a source that cannot give one sooner ignores it. */
  requestKeyFrame?(): void;
}
