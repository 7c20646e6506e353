/** Video decoding for the watcher: one FrameDecoder per stream, ffmpeg child or wasm worker. */
export type { DecoderBackend, Picture, FrameDecoder, CreateDecoderOptions } from './types';
export { createDecoder, decoderAvailability } from './create';
export { DecoderUnavailableError, DecoderFailedError, type DecoderErrorCode } from './errors';
export { FfmpegDecoder, ffmpegDecodeArgs } from './ffmpeg';
export { WasmDecoder } from './wasm';
