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
      // The client answers an `update` offer with an `update` message.
      if ((msg.type === 'answer' || msg.type === 'update') && msg.sdp) void pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp });
      if (msg.type === 'candidate' && msg.candidate) void pc.addIceCandidate({ candidate: msg.candidate, sdpMLineIndex: 0 }).catch(() => undefined);
    });
    void (async () => {
      const complete = gatheringComplete(pc);
      await pc.setLocalDescription(await pc.createOffer());
      // The offer carries the server's candidates, so it goes out once gathering is over.
      await complete;
      ws.send(JSON.stringify({ type: 'offer', sdp: pc.localDescription?.sdp, client_id: 'fake' }));
      onPeer(pc, ws);
    })();
  };
}

function gatheringComplete(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const { unSubscribe } = pc.iceGatheringStateChange.subscribe((state) => {
      if (state === 'complete') {
        unSubscribe();
        resolve();
      }
    });
  });
}

/**
 * Sends an `update` offer that sets the first m-line's direction, and resolves once the client's
 * answer to it is applied.
 */
export async function renegotiate(pc: RTCPeerConnection, ws: WebSocket, direction: 'sendonly' | 'inactive'): Promise<void> {
  pc.getTransceivers()[0].setDirection(direction);
  await pc.setLocalDescription(await pc.createOffer());
  const applied = new Promise<void>((resolve) => {
    const { unSubscribe } = pc.signalingStateChange.subscribe((state) => {
      if (state === 'stable') {
        unSubscribe();
        resolve();
      }
    });
  });
  ws.send(JSON.stringify({ type: 'update', sdp: pc.localDescription?.sdp }));
  await applied;
}
