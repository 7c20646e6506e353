/** Public API of the core client: host-agnostic, shared by the n8n and Node-RED nodes. */
export { ApiError, InputError, isClientError, type ApiErrorInit } from './errors';
export * from './auth';
export * from './http';
export * from './image';
export * from './vision';
export * from './streaming';
export * from './signaling';
export {
  FrameAssembler,
  IvfReader,
  ivfFileHeader,
  ivfFrame,
  parseVp8Frame,
  parseVp9Frame,
  H264ParameterCache,
  AccessUnitSplitter,
  type EncodedFrame,
  type VideoCodec,
  type FrameAssemblerOptions,
  type KeyframeReason,
} from './frames';
export * from './publish';
export { findFfmpeg, FfmpegNotFoundError, type FfmpegLookup } from './media';
