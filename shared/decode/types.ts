import type { EncodedFrame, VideoCodec } from '../frames/types';

/** How frames are decoded: a native ffmpeg child process, or WebAssembly in a worker thread. */
export type DecoderBackend = 'ffmpeg' | 'wasm';

/**
 * A decoded video picture. I420 planes are tightly packed: Y (w*h), then U and V (ceil(w/2)*ceil(h/2)
 * each); RGB and RGBA are interleaved, 3 or 4 bytes a pixel.
 */
export interface Picture {
  width: number;
  height: number;
  format: 'i420' | 'rgb' | 'rgba';
  data: Uint8Array;
  /** The encoded frame's timestamp (90 kHz RTP clock). */
  timestamp: number;
}

/** One video stream's decoder. Frames go in in decoding order; pictures come out only when asked for. */
export interface FrameDecoder {
  readonly backend: DecoderBackend;
  readonly codec: VideoCodec;
  /** Feeds one encoded frame in order. want=true: resolves with that frame's picture (undefined if it could not be decoded); want=false: resolves once accepted. */
  decode(frame: EncodedFrame, want: boolean): Promise<Picture | undefined>;
  /**
   * Hands a picture from decode() back once nothing reads it any more, so its buffer can hold a later
   * picture (the caller must not touch it afterwards). Optional to call; a picture from elsewhere is ignored.
   */
  release(picture: Picture): void;
  /** Idempotent; kills the child process / ends the worker. Pending calls resolve undefined. */
  close(): Promise<void>;
}

/** Options of createDecoder. */
export interface CreateDecoderOptions {
  codec: VideoCodec;
  /** 'auto' (default): ffmpeg when a binary is found, else wasm. */
  backend?: 'auto' | DecoderBackend;
  /** An explicit ffmpeg binary; when given, no other place is searched. */
  ffmpegPath?: string;
}
