import { InputError } from '../errors';
import type { VideoCodec } from '../frames/types';

/** Direction of a signaling session: upstream publishes, downstream views. */
export type Role = 'upstream' | 'downstream';
/** Audio codecs the connect message may ask for. */
export type AudioCodec = 'OPUS' | 'PCMU';

/** The connect message's `video` object. */
export interface VideoSettings {
  codec_type: VideoCodec;
  /** Maximum video bit rate in kbps; must stay below the service's limit. */
  bit_rate?: number;
}

/** The connect message's `audio` object. */
export interface AudioSettings {
  codec_type: AudioCodec;
}

/** What goes into a connect message, apart from the ticket token. */
export interface ConnectSettings {
  role: Role;
  /** Room id; defaults to the ticket's id. */
  channelId?: string;
  /** false for no video; true lets the server choose. Default { codec_type: 'VP8' }. */
  video?: boolean | VideoSettings;
  /** false for no audio (default); true lets the server choose. */
  audio?: boolean | AudioSettings;
}

/** The validated settings, defaults applied. */
export interface ResolvedConnectSettings {
  role: Role;
  channelId?: string;
  video: boolean | VideoSettings;
  audio: boolean | AudioSettings;
}

const ROLES: readonly Role[] = ['upstream', 'downstream'];
const VIDEO_CODECS: readonly VideoCodec[] = ['VP8', 'VP9', 'H264'];
const AUDIO_CODECS: readonly AudioCodec[] = ['OPUS', 'PCMU'];
const MAX_BIT_RATE_KBPS = 1_000_000;

/** Checks connect settings before anything is sent; throws InputError naming the field and the limit. */
export function resolveConnectSettings(s: ConnectSettings): ResolvedConnectSettings {
  if (!s || typeof s !== 'object') throw new InputError('invalid_input', 'connect settings must be an object', { field: 'settings', limit: 'an object' });
  if (!ROLES.includes(s.role)) {
    throw new InputError('invalid_input', `role must be 'upstream' or 'downstream', got ${describe(s.role)}`, { field: 'role', limit: "'upstream' or 'downstream'" });
  }
  if (s.channelId !== undefined && (typeof s.channelId !== 'string' || s.channelId.length === 0 || s.channelId.length > 255)) {
    throw new InputError('invalid_input', 'channel_id must be a non-empty string of at most 255 characters', { field: 'channel_id', limit: '1 to 255 characters' });
  }
  const video = resolveVideo(s.video);
  const audio = resolveAudio(s.audio);
  if (video === false && audio === false) {
    throw new InputError('invalid_input', 'video and audio are both false: the connect would carry no media (NO-MEDIA)', { field: 'video', limit: 'video or audio enabled' });
  }
  return { role: s.role, channelId: s.channelId, video, audio };
}

function resolveVideo(v: ConnectSettings['video']): boolean | VideoSettings {
  if (v === undefined) return { codec_type: 'VP8' };
  if (typeof v === 'boolean') return v;
  if (!v || typeof v !== 'object') throw new InputError('invalid_input', 'video must be false, true or { codec_type, bit_rate? }', { field: 'video', limit: 'boolean or object' });
  if (!VIDEO_CODECS.includes(v.codec_type)) {
    throw new InputError('invalid_input', `video.codec_type must be VP8, VP9 or H264, got ${describe(v.codec_type)}`, { field: 'video.codec_type', limit: 'VP8 | VP9 | H264' });
  }
  if (v.bit_rate !== undefined && (!Number.isInteger(v.bit_rate) || v.bit_rate <= 0 || v.bit_rate > MAX_BIT_RATE_KBPS)) {
    throw new InputError(
      'invalid_input',
      `video.bit_rate must be a positive integer number of kbps up to ${MAX_BIT_RATE_KBPS}, got ${describe(v.bit_rate)}`,
      { field: 'video.bit_rate', limit: `integer 1..${MAX_BIT_RATE_KBPS} kbps` },
    );
  }
  return v.bit_rate === undefined ? { codec_type: v.codec_type } : { codec_type: v.codec_type, bit_rate: v.bit_rate };
}

function resolveAudio(a: ConnectSettings['audio']): boolean | AudioSettings {
  if (a === undefined) return false;
  if (typeof a === 'boolean') return a;
  if (!a || typeof a !== 'object') throw new InputError('invalid_input', 'audio must be false, true or { codec_type }', { field: 'audio', limit: 'boolean or object' });
  if (!AUDIO_CODECS.includes(a.codec_type)) {
    throw new InputError('invalid_input', `audio.codec_type must be OPUS or PCMU, got ${describe(a.codec_type)}`, { field: 'audio.codec_type', limit: 'OPUS | PCMU' });
  }
  return { codec_type: a.codec_type };
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.slice(0, 40));
  return v === undefined ? 'nothing' : typeof v === 'number' ? String(v) : typeof v;
}

/** Builds the JSON text of a connect message. The token is only ever placed here, never logged. */
export function connectMessage(s: ResolvedConnectSettings, channelId: string, ticketToken: string): string {
  return JSON.stringify({
    type: 'connect',
    role: s.role,
    channel_id: s.channelId ?? channelId,
    metadata: { access_token: ticketToken },
    video: s.video,
    audio: s.audio,
  });
}
