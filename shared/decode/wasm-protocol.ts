import type { VideoCodec } from '../frames/types';

/** Messages between the wasm decoders and their shared worker threads (structured-cloned; buffers transferred). */

/** To a decode worker: open a decoder under `id`, decode one frame with it, or close it. */
export type DecodeRequest =
  | { type: 'open'; id: number; codec: VideoCodec }
  | {
      type: 'decode';
      id: number;
      seq: number;
      /** One encoded frame. H264 comes as its NAL units (start codes removed). */
      units: Uint8Array[];
      want: boolean;
      /** The size the stream says it has (H264 SPS cropping), so padding can be cut off. */
      width?: number;
      height?: number;
    }
  | { type: 'close'; id: number };

/** From a decode worker: a decoder ready, failed to start, or one request done (a picture as interleaved RGB). */
export type WorkerReply =
  | { type: 'ready'; id: number }
  | { type: 'failed'; id: number; message: string }
  | { type: 'done'; id: number; seq: number; picture?: { width: number; height: number; data: Uint8Array }; error?: string };
