export { findFfmpeg, FfmpegNotFoundError, type FfmpegLookup } from './ffmpeg';
