export { findFfmpeg, executableCopy, FfmpegNotFoundError, type FfmpegLookup } from './ffmpeg';
