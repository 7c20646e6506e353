import type { CloseReason } from './close-reasons';
import type { Direction } from './rooms';

/** Video codecs the SFU can negotiate. */
export type VideoCodec = 'VP8' | 'VP9' | 'H264';
/** Audio codecs the SFU can negotiate. */
export type AudioCodec = 'OPUS' | 'PCMU';

/** A connect message that passed every check the server can make without state. */
export interface ConnectRequest {
  direction: Direction;
  channelId: string;
  token: string;
  /** Undefined when the client asked for no video. */
  video?: { codec: VideoCodec; bitRateKbps?: number };
  /** Undefined when the client asked for no audio. */
  audio?: { codec: AudioCodec };
}

const VIDEO_CODECS: readonly string[] = ['VP8', 'VP9', 'H264'];
const AUDIO_CODECS: readonly string[] = ['OPUS', 'PCMU'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a connect message, returning the close reason that the spec pairs with the first fault.
 * Order: channel, role, media shape, codecs, bit rate, token presence; the token itself is checked later.
 */
export function parseConnect(message: Record<string, unknown>, bitRateLimitKbps: number): ConnectRequest | CloseReason {
  const channelId = message.channel_id;
  if (typeof channelId !== 'string' || channelId === '') return 'NOT-USE-CHANNEL-ID';
  const role = message.role;
  if (role !== 'upstream' && role !== 'downstream') return 'RAPI-INVALID-PARAMETER';

  const video = parseVideo(message.video);
  if (typeof video === 'string') return video;
  const audio = parseAudio(message.audio);
  if (typeof audio === 'string') return audio;
  if (!video && !audio) return 'NO-MEDIA';
  if (video && video.bitRateKbps !== undefined && video.bitRateKbps >= bitRateLimitKbps) return 'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS';

  const metadata = message.metadata;
  const token = isObject(metadata) ? metadata.access_token : undefined;
  if (typeof token !== 'string' || token === '') return 'RAPI-INVALID-TOKEN';

  return { direction: role === 'upstream' ? 'up' : 'down', channelId, token, video: video || undefined, audio: audio || undefined };
}

function parseVideo(value: unknown): ConnectRequest['video'] | false | CloseReason {
  // Sora's default is video on with VP8.
  if (value === undefined || value === true) return { codec: 'VP8' };
  if (value === false) return false;
  if (!isObject(value)) return 'INVALID-VIDEO-FORMAT';
  const codec = value.codec_type ?? 'VP8';
  if (typeof codec !== 'string' || !VIDEO_CODECS.includes(codec)) return 'UNKNOWN-CODEC-TYPE';
  const bitRate = value.bit_rate;
  if (bitRate !== undefined && (typeof bitRate !== 'number' || !Number.isInteger(bitRate) || bitRate <= 0)) {
    return 'INVALID-VIDEO-FORMAT';
  }
  return { codec: codec as VideoCodec, bitRateKbps: bitRate };
}

function parseAudio(value: unknown): ConnectRequest['audio'] | false | CloseReason {
  if (value === undefined || value === true) return { codec: 'OPUS' };
  if (value === false) return false;
  if (!isObject(value)) return 'INVALID-AUDIO-FORMAT';
  const codec = value.codec_type ?? 'OPUS';
  if (typeof codec !== 'string' || !AUDIO_CODECS.includes(codec)) return 'UNKNOWN-CODEC-TYPE';
  return { codec: codec as AudioCodec };
}
