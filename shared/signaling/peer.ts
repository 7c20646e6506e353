import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  useNACK,
  usePLI,
  useREMB,
  type PeerConfig,
  type RTCIceServer,
} from 'werift';
import type { VideoCodec } from '../frames/types';
import type { AudioCodec, AudioSettings, VideoSettings } from './connect';
import type { OfferIceServer } from './messages';

const LOOPBACK = '127.0.0.1';

/** How the answering peer connection is set up. */
export interface PeerSettings {
  video: boolean | VideoSettings;
  audio: boolean | AudioSettings;
  /** Use only 127.0.0.1 host candidates (tests, a local sandbox); no STUN/TURN, no IPv6. */
  loopbackOnly?: boolean;
  /** ICE servers to use instead of the ones in the offer's config. */
  iceServers?: RTCIceServer[];
}

/** werift codec parameters for a video codec (H264 in packetization mode 1, as browsers send it). */
export function videoCodec(codec: VideoCodec): RTCRtpCodecParameters {
  const rtcpFeedback = [useNACK(), usePLI(), useREMB()];
  if (codec === 'H264') {
    return new RTCRtpCodecParameters({
      mimeType: 'video/H264',
      clockRate: 90000,
      rtcpFeedback,
      parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
    });
  }
  return new RTCRtpCodecParameters({ mimeType: `video/${codec}`, clockRate: 90000, rtcpFeedback });
}

function audioCodec(codec: AudioCodec): RTCRtpCodecParameters {
  return codec === 'OPUS'
    ? new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })
    : new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: 8000, channels: 1, payloadType: 0 });
}

/** Maps a werift mime type ('video/VP8') to this package's codec name, if it is a video codec we handle. */
export function codecFromMime(mimeType: string | undefined): VideoCodec | undefined {
  const name = (mimeType ?? '').split('/')[1]?.toUpperCase();
  return name === 'VP8' || name === 'VP9' || name === 'H264' ? name : undefined;
}

/** Creates the client's peer connection; it always answers the server's offer. */
export function createPeer(settings: PeerSettings, offerIceServers: OfferIceServer[] = []): RTCPeerConnection {
  const video =
    settings.video === false ? [] : settings.video === true ? (['VP8', 'VP9', 'H264'] as const).map(videoCodec) : [videoCodec(settings.video.codec_type)];
  const audio =
    settings.audio === false ? [] : settings.audio === true ? [audioCodec('OPUS'), audioCodec('PCMU')] : [audioCodec(settings.audio.codec_type)];
  const config: Partial<PeerConfig> = { bundlePolicy: 'max-bundle', codecs: { video, audio } };
  if (settings.loopbackOnly) {
    Object.assign(config, {
      iceServers: [],
      iceUseIpv4: true,
      iceUseIpv6: false,
      iceUseTcp: false,
      iceInterfaceAddresses: { udp4: LOOPBACK },
      iceAdditionalHostAddresses: [LOOPBACK],
      iceFilterCandidatePair: (pair: { localCandidate: { host: string }; remoteCandidate: { host: string } }) =>
        pair.localCandidate.host === LOOPBACK && pair.remoteCandidate.host === LOOPBACK,
    } satisfies Partial<PeerConfig>);
  } else {
    config.iceServers = settings.iceServers ?? offerIceServers.filter((s) => s && (typeof s.urls === 'string' || Array.isArray(s.urls)));
  }
  return new RTCPeerConnection(config);
}

/** True when a trickled candidate may be sent under the loopback restriction. */
export function candidateAllowed(candidate: string, loopbackOnly: boolean | undefined): boolean {
  if (!loopbackOnly) return true;
  // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
  const parts = candidate.split(' ');
  return parts[4] === LOOPBACK && parts[7] === 'host';
}
