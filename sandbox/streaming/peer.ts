import { networkInterfaces } from 'node:os';
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  useNACK,
  usePLI,
  useREMB,
  type PeerConfig,
} from 'werift';
import type { AudioCodec, VideoCodec } from './connect-message';

const LOOPBACK = '127.0.0.1';
/**
 * werift queries a public STUN server whenever none is configured, even with `iceServers: []`. An
 * IPv6 loopback address takes its place: the IPv4-only sockets below refuse to query it before
 * anything is sent, so there is no DNS lookup and no packet beyond 127.0.0.1.
 */
const NO_STUN = { urls: 'stun:[::1]:9' };

/** RTP parameters the SFU offers for each video codec (payload types follow common browser numbering). */
export function videoCodecParameters(codec: VideoCodec): RTCRtpCodecParameters {
  const rtcpFeedback = [useNACK(), usePLI(), useREMB()];
  switch (codec) {
    case 'VP8':
      return new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000, payloadType: 96, rtcpFeedback });
    case 'VP9':
      return new RTCRtpCodecParameters({ mimeType: 'video/VP9', clockRate: 90000, payloadType: 98, rtcpFeedback });
    case 'H264':
      return new RTCRtpCodecParameters({
        mimeType: 'video/H264',
        clockRate: 90000,
        payloadType: 102,
        rtcpFeedback,
        parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
      });
  }
}

/** RTP parameters the SFU offers for each audio codec (PCMU keeps its static payload type 0). */
export function audioCodecParameters(codec: AudioCodec): RTCRtpCodecParameters {
  return codec === 'OPUS'
    ? new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: 111 })
    : new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: 8000, channels: 1, payloadType: 0 });
}

/** Addresses of this machine: a remote candidate on one of them keeps traffic inside the host. */
function ownAddresses(): Set<string> {
  const own = new Set<string>([LOOPBACK]);
  for (const list of Object.values(networkInterfaces())) for (const info of list ?? []) own.add(info.address);
  return own;
}

/**
 * A werift peer whose sockets are bound to 127.0.0.1: no STUN, no IPv6, no TCP. A pair is allowed only
 * towards this machine's own addresses (many clients leave loopback out of their candidates, but a
 * packet from 127.0.0.1 to a local interface address never leaves the host).
 */
export function createLoopbackPeer(codecs: { video?: VideoCodec; audio?: AudioCodec }): RTCPeerConnection {
  const own = ownAddresses();
  const config: Partial<PeerConfig> = {
    iceServers: [NO_STUN],
    iceStunGatherTimeout: 1,
    iceUseIpv4: true,
    iceUseIpv6: false,
    iceUseTcp: false,
    iceInterfaceAddresses: { udp4: LOOPBACK },
    iceAdditionalHostAddresses: [LOOPBACK],
    iceFilterCandidatePair: (pair) => pair.localCandidate.host === LOOPBACK && own.has(pair.remoteCandidate.host),
    bundlePolicy: 'max-bundle',
    codecs: {
      video: codecs.video ? [videoCodecParameters(codecs.video)] : [],
      audio: codecs.audio ? [audioCodecParameters(codecs.audio)] : [],
    },
  };
  return new RTCPeerConnection(config);
}

/** Keeps only the loopback ICE candidates of an SDP (the others are bound to loopback anyway and would fail). */
export function loopbackOnlySdp(sdp: string): string {
  return sdp
    .split(/\r\n/)
    .filter((line) => !line.startsWith('a=candidate:') || line.split(' ')[4] === LOOPBACK)
    .join('\r\n');
}

/** Resolves once ICE gathering is complete, or after `timeoutMs` with whatever was gathered. */
export function waitForGathering(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    const { unSubscribe } = pc.iceGatheringStateChange.subscribe((state) => {
      if (state === 'complete') done();
    });
    function done(): void {
      clearTimeout(timer);
      unSubscribe();
      resolve();
    }
  });
}
