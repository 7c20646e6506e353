import { findFfmpeg } from '../media/ffmpeg';
import type { VideoCodec } from '../frames/types';
import { DecoderUnavailableError } from './errors';
import { FfmpegDecoder } from './ffmpeg';
import { WasmDecoder } from './wasm';
import type { CreateDecoderOptions, DecoderBackend, FrameDecoder } from './types';

const CODECS: readonly VideoCodec[] = ['VP8', 'VP9', 'H264'];

/** Which backend a codec would get, or the typed error saying what is missing. */
export async function decoderAvailability(
  codec: VideoCodec,
  backend: 'auto' | DecoderBackend = 'auto',
  options: { ffmpegPath?: string } = {},
): Promise<{ backend: DecoderBackend; ffmpegPath?: string } | { error: DecoderUnavailableError }> {
  if (!CODECS.includes(codec)) return { error: DecoderUnavailableError.from(codec, backend, `unknown codec (${CODECS.join(', ')} are decoded)`) };
  if (backend === 'wasm') return wasmAvailability(codec, 'wasm');
  try {
    const ffmpegPath = await findFfmpeg({ ffmpegPath: options.ffmpegPath });
    return { backend: 'ffmpeg', ffmpegPath };
  } catch (err) {
    if (backend === 'auto') return wasmAvailability(codec, 'auto', (err as Error).message);
    return { error: DecoderUnavailableError.from(codec, 'ffmpeg', (err as Error).message) };
  }
}

// The wasm decoders are regular dependencies, but a host may have pruned or bundled them away.
const WASM_MODULE: Record<VideoCodec, string> = {
  VP8: 'ogv/dist/ogv-decoder-video-vp8-wasm.js',
  VP9: 'ogv/dist/ogv-decoder-video-vp9-simd-wasm.js',
  H264: 'h264decoder',
};

function wasmAvailability(codec: VideoCodec, asked: 'auto' | 'wasm', ffmpegProblem?: string): { backend: 'wasm' } | { error: DecoderUnavailableError } {
  try {
    require.resolve(WASM_MODULE[codec]);
    return { backend: 'wasm' };
  } catch {
    const missing = `the wasm decoder (${WASM_MODULE[codec].split('/')[0]}) is not installed`;
    return { error: DecoderUnavailableError.from(codec, asked, ffmpegProblem ? `${missing}, and ${ffmpegProblem}` : missing) };
  }
}

/**
 * Makes a decoder for one stream. 'auto' takes ffmpeg when a binary is found (as the publisher finds
 * it), else the wasm decoders, which need nothing native. The wasm H264 decoder reads Baseline only.
 */
export async function createDecoder(options: CreateDecoderOptions): Promise<FrameDecoder> {
  const backend = options.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'ffmpeg' && backend !== 'wasm') {
    throw DecoderUnavailableError.from(options.codec, backend, "unknown backend ('auto', 'ffmpeg' or 'wasm')");
  }
  const found = await decoderAvailability(options.codec, backend, { ffmpegPath: options.ffmpegPath });
  if ('error' in found) throw found.error;
  if (found.backend === 'ffmpeg') return FfmpegDecoder.start(options.codec, found.ffmpegPath as string);
  return WasmDecoder.start(options.codec);
}
