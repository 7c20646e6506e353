import { RTCPeerConnection, useVP8 } from 'werift';
import type { WebSocket } from 'ws';

const LOOPBACK = '127.0.0.1';
/** Replaces werift's public STUN default: IPv4-only sockets refuse this address before sending. */
const NO_STUN = { urls: 'stun:[::1]:9' };

/**
 * A minimal server side of signaling for cases the sandbox does not stage: it offers one VP8
 * m-line, applies the answer and trickled candidates, and exposes its peer connection.
 */
export function offerOnConnect(onPeer: (pc: RTCPeerConnection, ws: WebSocket) => void) {
  return (ws: WebSocket): void => {
    const pc = new RTCPeerConnection({
      iceServers: [NO_STUN],
      iceStunGatherTimeout: 1,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: [LOOPBACK],
      iceInterfaceAddresses: { udp4: LOOPBACK },
      iceFilterCandidatePair: (pair) => pair.localCandidate.host === LOOPBACK && pair.remoteCandidate.host === LOOPBACK,
      codecs: { video: [useVP8()], audio: [] },
    });
    pc.addTransceiver('video', { direction: 'sendonly' });
    ws.on('close', () => void pc.close());
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { type: string; sdp?: string; candidate?: string };
      if (msg.type === 'answer' && msg.sdp) void pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp });
      if (msg.type === 'candidate' && msg.candidate) void pc.addIceCandidate({ candidate: msg.candidate, sdpMLineIndex: 0 }).catch(() => undefined);
    });
    void (async () => {
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 200));
      ws.send(JSON.stringify({ type: 'offer', sdp: pc.localDescription?.sdp, client_id: 'fake' }));
      onPeer(pc, ws);
    })();
  };
}
