import type { VideoCodec } from '../frames/types';

/** Messages between a WasmDecoder and its worker thread (structured-cloned; buffers transferred). */

/** workerData of the worker. */
export interface WorkerInit {
  codec: VideoCodec;
}

/** One encoded frame to decode. H264 comes as its NAL units (start codes removed). */
export interface DecodeRequest {
  type: 'decode';
  id: number;
  units: Uint8Array[];
  want: boolean;
  /** The size the stream says it has (H264 SPS cropping), so padding can be cut off. */
  width?: number;
  height?: number;
}

/** From the worker: ready, failed to start, or one request done. */
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'done'; id: number; picture?: { width: number; height: number; data: Uint8Array }; error?: string };
