import { Vp8RtpPayload, type RTCPeerConnection } from 'werift';
import WebSocket from 'ws';
import { createPeer, loopbackCandidatesOnly } from '../../shared/signaling/peer';
import type { Ticket } from '../../shared/streaming';

/**
 * A viewer that never asks for a key frame: it joins over the signaling protocol, answers the
 * offers with a werift peer and only records when the first VP8 key frame arrives. What it
 * measures is what the SFU does for a new viewer on its own (our own session sends a PLI itself).
 */
export class PassiveViewer {
  firstKeyAt?: number;
  packets = 0;
  readonly #pc: RTCPeerConnection;
  readonly #ws: WebSocket;

  private constructor(ticket: Ticket) {
    this.#pc = createPeer({ video: { codec_type: 'VP8' }, audio: false, loopbackOnly: true });
    this.#pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        this.packets++;
        if (this.firstKeyAt === undefined && Vp8RtpPayload.deSerialize(rtp.payload).isKeyframe) this.firstKeyAt = performance.now();
      });
    });
    this.#ws = new WebSocket(ticket.url);
    this.#ws.on('error', () => undefined);
    this.#ws.on('open', () => {
      this.#ws.send(
        JSON.stringify({ type: 'connect', role: 'downstream', channel_id: ticket.id, metadata: { access_token: ticket.access_token }, video: { codec_type: 'VP8' }, audio: false }),
      );
    });
    this.#ws.on('message', (data) => void this.#onMessage(JSON.parse(data.toString()) as Record<string, unknown>));
  }

  /** Joins the room of a down ticket; resolves once the peer connection is connected (30 s at most). */
  static async join(ticket: Ticket): Promise<PassiveViewer> {
    const viewer = new PassiveViewer(ticket);
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30_000);
      viewer.#pc.connectionStateChange.subscribe((state) => {
        if (state === 'connected' || state === 'failed' || state === 'closed') {
          clearTimeout(timer);
          resolve(state === 'connected');
        }
      });
    });
    if (!connected) {
      await viewer.close();
      throw new Error('the passive viewer did not connect');
    }
    return viewer;
  }

  /** Leaves: closes the socket and the peer. */
  async close(): Promise<void> {
    this.#ws.terminate();
    await this.#pc.close();
  }

  async #onMessage(message: Record<string, unknown>): Promise<void> {
    if (message.type === 'ping') {
      this.#ws.send(JSON.stringify({ type: 'pong' }));
      return;
    }
    if (message.type !== 'offer' && message.type !== 'update' && message.type !== 're-offer') return;
    await this.#pc.setRemoteDescription({ type: 'offer', sdp: String(message.sdp) });
    await this.#pc.setLocalDescription(await this.#pc.createAnswer());
    await gathered(this.#pc);
    const reply = message.type === 'offer' ? 'answer' : message.type === 'update' ? 'update' : 're-answer';
    this.#ws.send(JSON.stringify({ type: reply, sdp: loopbackCandidatesOnly(this.#pc.localDescription?.sdp ?? '') }));
  }
}

function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    pc.iceGatheringStateChange.subscribe((state) => {
      if (state === 'complete') resolve();
    });
  });
}
