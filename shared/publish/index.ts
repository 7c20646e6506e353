export type { SourceFrame, VideoSource } from './source';
export { IvfFileSource, AnnexBFileSource, type FileSourceOptions } from './file-sources';
export { FfmpegSource, ffmpegArgs, ffmpegEncoders, type EncodeSettings, type FfmpegInput, type FfmpegSourceOptions } from './ffmpeg-source';
export { Publisher, type PublisherOptions, type PublisherEvents, type PublisherStats } from './publisher';
export { openVideoSource, type OpenSourceOptions } from './open-source';
