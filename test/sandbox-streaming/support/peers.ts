import {
  MediaStreamTrack,
  PictureLossIndication,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtcpPayloadSpecificFeedback,
  RtpHeader,
  RtpPacket,
  usePLI,
  useNACK,
  type RtcpPacket,
  type RTCRtpTransceiver,
} from 'werift';

const LOOPBACK = '127.0.0.1';
/** Replaces werift's public STUN default: IPv4-only sockets refuse this address before sending. */
export const NO_STUN = { urls: 'stun:[::1]:9' };

/** Video codecs the tests publish. */
export type TestCodec = 'VP8' | 'VP9' | 'H264';

function codecParameters(codec: TestCodec): RTCRtpCodecParameters {
  const rtcpFeedback = [useNACK(), usePLI()];
  if (codec === 'H264') {
    return new RTCRtpCodecParameters({
      mimeType: 'video/H264',
      clockRate: 90000,
      payloadType: 102,
      rtcpFeedback,
      parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
    });
  }
  return new RTCRtpCodecParameters({ mimeType: `video/${codec}`, clockRate: 90000, payloadType: codec === 'VP8' ? 96 : 98, rtcpFeedback });
}

/** A werift peer for tests that only gathers, offers and accepts 127.0.0.1 candidates. */
export function loopbackPeer(codec: TestCodec = 'VP8', withAudio = false): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: [NO_STUN],
    iceStunGatherTimeout: 1,
    iceUseIpv6: false,
    iceInterfaceAddresses: { udp4: LOOPBACK },
    iceAdditionalHostAddresses: [LOOPBACK],
    iceFilterCandidatePair: (pair) => pair.localCandidate.host === LOOPBACK && pair.remoteCandidate.host === LOOPBACK,
    bundlePolicy: 'max-bundle',
    codecs: {
      video: [codecParameters(codec)],
      audio: withAudio ? [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: 111 })] : [],
    },
  });
}

/** Drops every non-loopback candidate line so tests never send to another address. */
export function onlyLoopback(sdp: string): string {
  return sdp
    .split('\r\n')
    .filter((line) => !line.startsWith('a=candidate:') || line.split(' ')[4] === LOOPBACK)
    .join('\r\n');
}

/** Resolves once ICE gathering is complete (bounded by the test timeout). */
export function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    pc.iceGatheringStateChange.subscribe((state) => {
      if (state === 'complete') resolve();
    });
  });
}

/** Answers an offer; with `trickle` the answer carries no candidates and they are returned separately. */
export async function answer(pc: RTCPeerConnection, offerSdp: string, trickle = false): Promise<{ sdp: string; candidates: string[] }> {
  await pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  const sdp = onlyLoopback(pc.localDescription?.sdp ?? '');
  if (!trickle) return { sdp, candidates: [] };
  const lines = sdp.split('\r\n');
  return {
    // A trickling answer must not claim its candidates are complete.
    sdp: lines.filter((line) => !line.startsWith('a=candidate:') && line !== 'a=end-of-candidates').join('\r\n'),
    candidates: lines.filter((line) => line.startsWith('a=candidate:')).map((line) => line.slice(2)),
  };
}

/** True for an RTCP Picture Loss Indication. */
export function isPli(packet: RtcpPacket): boolean {
  return packet instanceof RtcpPayloadSpecificFeedback && packet.feedback instanceof PictureLossIndication;
}

/** VP8 payload of one RTP packet: a one-byte descriptor (start of partition) and a tiny frame. */
export function vp8Payload(keyframe: boolean): Buffer {
  const descriptor = 0x10;
  if (keyframe) {
    // Frame tag with the key-frame bit clear and show_frame set, the start code, then 16x16.
    return Buffer.from([descriptor, 0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]);
  }
  return Buffer.from([descriptor, 0x11, 0x02, 0x00, 0x00, 0x00, 0x00]);
}

/** True when an RTP payload (with its one-byte descriptor) starts a VP8 key frame. */
export function isVp8Keyframe(payload: Buffer): boolean {
  const frame = payload.subarray(1);
  return frame.length >= 6 && (frame[0] & 1) === 0 && frame[3] === 0x9d && frame[4] === 0x01 && frame[5] === 0x2a;
}

/**
 * A publisher that sends synthetic VP8 over RTP: one key frame at start and then only when a PLI
 * arrives, inter frames otherwise, so a viewer that gets a late key frame proves PLI forwarding.
 */
export class SyntheticPublisher {
  readonly pc: RTCPeerConnection;
  readonly track = new MediaStreamTrack({ kind: 'video' });
  plis = 0;
  sent = 0;
  /** PLIs to ignore from now on, as a publisher does when a request is lost or comes too early. */
  ignorePlis = 0;
  #keyframePending = true;
  #sequence = 1;
  #timestamp = 1000;
  #timer?: NodeJS.Timeout;

  constructor(codec: TestCodec = 'VP8') {
    this.pc = loopbackPeer(codec);
  }

  /** Answers the SFU's offer with a sendonly video track. */
  async answer(offerSdp: string): Promise<string> {
    await this.pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    const video = this.pc.getTransceivers().find((t) => t.kind === 'video');
    if (!video) throw new Error('offer has no video m-line');
    await video.sender.replaceTrack(this.track);
    video.setDirection('sendonly');
    this.#listenForPli(video);
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    await gathered(this.pc);
    return onlyLoopback(this.pc.localDescription?.sdp ?? '');
  }

  /** Starts sending one frame every `gapMs` (bounded by stop()). */
  start(gapMs = 20): void {
    this.#timer = setInterval(() => this.#sendFrame(), gapMs);
  }

  /** Stops the frames and closes the peer. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.pc.close();
  }

  #listenForPli(transceiver: RTCRtpTransceiver): void {
    const onPli = (): void => {
      this.plis++;
      if (this.ignorePlis > 0) this.ignorePlis--;
      else this.#keyframePending = true;
    };
    transceiver.sender.onPictureLossIndication.subscribe(onPli);
    // An answering publisher may see the PLI on the receiver's RTCP path instead.
    transceiver.receiver.onRtcp.subscribe((packet) => {
      if (isPli(packet)) onPli();
    });
  }

  #sendFrame(): void {
    const keyframe = this.#keyframePending;
    this.#keyframePending = false;
    this.#timestamp += 1800;
    const header = new RtpHeader({ payloadType: 96, sequenceNumber: this.#sequence, timestamp: this.#timestamp, ssrc: 0x1234, marker: true });
    this.#sequence = (this.#sequence + 1) & 0xffff;
    this.track.writeRtp(new RtpPacket(header, vp8Payload(keyframe)));
    this.sent++;
  }
}

/** A viewer that records the VP8 RTP it receives. */
export class RecordingViewer {
  readonly pc: RTCPeerConnection;
  packets = 0;
  keyframes = 0;
  /** Payload types seen on the received RTP. */
  readonly payloadTypes = new Set<number>();

  constructor(codec: TestCodec = 'VP8') {
    this.pc = loopbackPeer(codec);
    this.pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        this.packets++;
        this.payloadTypes.add(rtp.header.payloadType);
        if (isVp8Keyframe(rtp.payload)) this.keyframes++;
      });
    });
  }

  /** Closes the peer. */
  async stop(): Promise<void> {
    await this.pc.close();
  }
}
