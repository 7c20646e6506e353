import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  useNACK,
  usePLI,
  useREMB,
  type PeerConfig,
  type RTCIceServer,
} from 'werift';
import { VIDEO_CLOCK, type VideoCodec } from '../frames/types';
import type { AudioCodec, AudioSettings, VideoSettings } from './connect';
import type { OfferIceServer } from './messages';
import { speedUpWerift } from './werift-speedups';

const LOOPBACK = '127.0.0.1';

/**
 * werift always queries a STUN server and falls back to a public one when none is configured. This
 * entry takes that place when nobody configured one: an IPv6 loopback address, which werift refuses
 * to query from the IPv4 sockets before sending anything (no DNS lookup, no packet, no wait), and
 * which from an IPv6 socket never leaves the machine. The result: host candidates only.
 */
const NO_STUN: RTCIceServer = { urls: 'stun:[::1]:9' };
/** Seconds werift waits for that query from an IPv6 socket before gathering counts as complete. */
const NO_STUN_GATHER_TIMEOUT = 1;

/** How the answering peer connection is set up. */
export interface PeerSettings {
  video: boolean | VideoSettings;
  audio: boolean | AudioSettings;
  /** Use only 127.0.0.1 host candidates (tests, a local sandbox); no STUN/TURN, no IPv6, nothing sent elsewhere. */
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
      clockRate: VIDEO_CLOCK,
      rtcpFeedback,
      parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
    });
  }
  return new RTCRtpCodecParameters({ mimeType: `video/${codec}`, clockRate: VIDEO_CLOCK, rtcpFeedback });
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
  speedUpWerift();
  const video =
    settings.video === false ? [] : settings.video === true ? (['VP8', 'VP9', 'H264'] as const).map(videoCodec) : [videoCodec(settings.video.codec_type)];
  const audio =
    settings.audio === false ? [] : settings.audio === true ? [audioCodec('OPUS'), audioCodec('PCMU')] : [audioCodec(settings.audio.codec_type)];
  const config: Partial<PeerConfig> = { bundlePolicy: 'max-bundle', codecs: { video, audio } };
  if (settings.loopbackOnly) {
    Object.assign(config, {
      iceServers: [NO_STUN],
      iceStunGatherTimeout: NO_STUN_GATHER_TIMEOUT,
      iceUseIpv4: true,
      iceUseIpv6: false,
      iceUseTcp: false,
      iceInterfaceAddresses: { udp4: LOOPBACK },
      iceAdditionalHostAddresses: [LOOPBACK],
      iceFilterCandidatePair: (pair: { localCandidate: { host: string }; remoteCandidate: { host: string } }) =>
        pair.localCandidate.host === LOOPBACK && pair.remoteCandidate.host === LOOPBACK,
    } satisfies Partial<PeerConfig>);
  } else {
    const servers = settings.iceServers ?? offerIceServers.filter((s) => s && (typeof s.urls === 'string' || Array.isArray(s.urls)));
    // Nobody asked for STUN: gather host (and configured TURN) candidates, query no public server.
    const hasStun = servers.some((s) => [s.urls].flat().some((u) => /^stuns?:/i.test(String(u).trim())));
    config.iceServers = hasStun ? servers : [...servers, NO_STUN];
    if (!hasStun) config.iceStunGatherTimeout = NO_STUN_GATHER_TIMEOUT;
  }
  return new RTCPeerConnection(config);
}

/** Drops the `a=candidate` lines of an SDP whose address is not 127.0.0.1 or that are not host candidates. */
export function loopbackCandidatesOnly(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  return sdp
    .split(eol)
    .filter((line) => !line.startsWith('a=candidate:') || candidateAllowed(line.slice(2), true))
    .join(eol);
}

/** True when a trickled candidate may be sent under the loopback restriction. */
export function candidateAllowed(candidate: string, loopbackOnly: boolean | undefined): boolean {
  if (!loopbackOnly) return true;
  // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
  const parts = candidate.split(' ');
  return parts[4] === LOOPBACK && parts[7] === 'host';
}
