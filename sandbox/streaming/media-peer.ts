import type { RTCPeerConnection } from 'werift';
import type { AudioCodec, VideoCodec } from './connect-message';
import { holdEarlyDtls } from './early-dtls';
import { createLoopbackPeer, loopbackOnlySdp, waitForGathering } from './peer';

/** Why an answer could not be applied, named with the spec's close reason. */
export class SdpError extends Error {
  constructor(readonly reason: 'FAILURE-SDP-PARSE' | 'MISSING-ICE-SDP') {
    super(reason);
  }
}

/**
 * The server side of one WebRTC session: werift is the offerer, its candidates ride inside the
 * offer, the client's answer and trickled candidates come back through signaling.
 */
export abstract class MediaPeer {
  protected readonly pc: RTCPeerConnection;
  protected isClosed = false;
  /** True between sending an offer (first or `update`) and applying its answer. */
  protected isNegotiating = true;
  readonly #releasedListeners: (() => void)[] = [];
  #updateListener?: (sdp: string) => void;
  #failedListener?: () => void;

  readonly #iceGatheringTimeoutMs: number;
  /** One count per DTLS transport of the early packets handed over (see holdEarlyDtls). */
  readonly #earlyDtls = new Map<object, () => number>();

  constructor(codecs: { video?: VideoCodec; audio?: AudioCodec }, iceGatheringTimeoutMs: number) {
    this.#iceGatheringTimeoutMs = iceGatheringTimeoutMs;
    this.pc = createLoopbackPeer(codecs);
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'failed' && !this.isClosed) this.#failedListener?.();
    });
  }

  /** Creates the offer and waits for ICE gathering, so every server candidate is inside the SDP. */
  async createOffer(): Promise<string> {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    for (const transport of this.pc.dtlsTransports) {
      if (!this.#earlyDtls.has(transport)) this.#earlyDtls.set(transport, holdEarlyDtls(transport));
    }
    await waitForGathering(this.pc, this.#iceGatheringTimeoutMs);
    return loopbackOnlySdp(this.pc.localDescription?.sdp ?? '');
  }

  /** Applies the client's answer to the latest offer; throws SdpError when it is unusable. */
  async acceptAnswer(sdp: string): Promise<void> {
    if (!/^v=0\r?\n/.test(sdp) || !/^m=/m.test(sdp)) throw new SdpError('FAILURE-SDP-PARSE');
    if (!/^a=ice-ufrag:/m.test(sdp) || !/^a=ice-pwd:/m.test(sdp)) throw new SdpError('MISSING-ICE-SDP');
    try {
      await this.pc.setRemoteDescription({ type: 'answer', sdp });
    } catch {
      throw new SdpError('FAILURE-SDP-PARSE');
    }
    this.isNegotiating = false;
    if (!this.isClosed) this.answered();
  }

  /** Adds one trickled client candidate; malformed or late candidates are ignored, as browsers do, and so are mDNS names. */
  async addCandidate(candidate: string): Promise<void> {
    if (this.isClosed) return;
    // A browser that hides its addresses (Chrome's default) sends host candidates named <uuid>.local.
    // werift would look each one up over multicast DNS, 10 s when nobody answers, and it applies the
    // candidates that came before the answer inside that answer's setRemoteDescription, one lookup
    // after another: the answer was then applied after the room's 10 s wait had closed the join
    // (CONNECTION-CREATED-WAIT-TIMEOUT-ERROR). The peer pairs only with this machine's own
    // addresses, which it learns from the client's checks anyway (peer-reflexive), so a name is skipped.
    if (isMdnsName(candidateAddress(candidate))) return;
    const mid = this.pc.getTransceivers()[0]?.mid ?? undefined;
    try {
      await this.pc.addIceCandidate({ candidate, sdpMid: mid, sdpMLineIndex: 0 });
    } catch {
      // A candidate the agent cannot use does not break a session that has others.
    }
  }

  /** DTLS packets that came before this peer's DTLS side started and were handed to it then. */
  get earlyDtlsPackets(): number {
    let total = 0;
    for (const handed of this.#earlyDtls.values()) total += handed();
    return total;
  }

  /** Registers where a renegotiation offer goes (signaling sends it as `update`). */
  onUpdate(listener: (sdp: string) => void): void {
    this.#updateListener = listener;
  }

  /** Registers what happens when the transport fails for good. */
  onFailed(listener: () => void): void {
    this.#failedListener = listener;
  }

  /** Registers a callback run once the peer is closed. */
  onReleased(listener: () => void): void {
    this.#releasedListeners.push(listener);
  }

  /** Closes the peer connection; safe to call more than once. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.released();
    for (const listener of this.#releasedListeners) listener();
    try {
      await this.pc.close();
    } catch {
      // Closing a half-built peer can throw inside werift; there is nothing left to release.
    }
  }

  /** Starts a renegotiation: a fresh offer sent through the update listener. */
  protected renegotiate(): void {
    this.isNegotiating = true;
    this.createOffer().then(
      (sdp) => {
        if (!this.isClosed) this.#updateListener?.(sdp);
      },
      () => {
        if (!this.isClosed) this.#failedListener?.();
      },
    );
  }

  /** Runs after an answer was applied. */
  protected abstract answered(): void;
  /** Runs once when the peer closes, before the werift connection is torn down. */
  protected abstract released(): void;
}

/** The connection address of a candidate line (its fifth field): an IP address or an mDNS name. */
function candidateAddress(candidate: string): string {
  return candidate.trim().split(/\s+/)[4] ?? '';
}

/** True for a multicast DNS name (RFC 6762: a name under .local), as browsers put in place of their addresses. */
function isMdnsName(address: string): boolean {
  return /\.local\.?$/i.test(address);
}
