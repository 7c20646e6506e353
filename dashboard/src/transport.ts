// The room connection of one page: signaling over a WebSocket as a downstream client and the peer
// connection it sets up. No Vue and no DOM elements here: the component shows what this receives
// (as go2rtc's video-rtc.js keeps its transport apart from its element).

/** What Node-RED's ticket answer gives a page to join with. */
export interface RoomTicket {
  roomId: string;
  url: string;
  token: string;
  codec: string;
}

/** One stream the room plays now. */
export interface RoomStream {
  streamId: string;
  stream: MediaStream;
}

/** What a transport tells its owner. */
export interface TransportEvents {
  /** The streams the room plays may have changed (a track came, an offer or update was answered). */
  streams(): void;
  /** The peer connection is connected. */
  connected(): void;
  /** The join ended without its owner asking (the room closed it, the picture was lost): why, in words. */
  ended(why: string): void;
}

/** A peer connection 'disconnected' for this long is given up. */
const DISCONNECTED_MS = 4000;

const MIME: Record<string, string> = { VP8: 'video/vp8', VP9: 'video/vp9', H264: 'video/h264' };

/** True when this browser can decode the codec (true when it cannot tell: then it tries). */
export function canPlay(codec: string): boolean {
  if (typeof RTCRtpReceiver === 'undefined' || !RTCRtpReceiver.getCapabilities) return true;
  const caps = RTCRtpReceiver.getCapabilities('video');
  if (!caps) return true;
  return caps.codecs.some((c) => c.mimeType.toLowerCase() === MIME[codec]);
}

interface SignalingMessage {
  type?: string;
  sdp?: string;
  client_id?: string;
  config?: { iceServers?: RTCIceServer[] };
}

/**
 * One join of a room: connect, answer the offer and every update and re-offer, send candidates, pong
 * every ping. It owns its WebSocket, its peer connection and its timer, and close() ends all three
 * once; after close (or after `ended`) it tells nothing more.
 */
export class RoomTransport {
  readonly #ticket: RoomTicket;
  readonly #events: TransportEvents;
  readonly #streams = new Map<string, MediaStream>();
  #ws: WebSocket | null = null;
  #pc: RTCPeerConnection | null = null;
  /** This page's own id in the room (from the offer): a stream of that id is its own, not a camera. */
  #clientId: string | undefined;
  #stalled: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #connected = false;
  /** Offers are answered one after another: an `update` that came while the first offer was being answered waits for that answer to be sent. */
  #negotiations: Promise<void> = Promise.resolve();

  constructor(ticket: RoomTicket, events: TransportEvents) {
    this.#ticket = ticket;
    this.#events = events;
  }

  /** True once the peer connection connected (and until the join ends). */
  get connected(): boolean {
    return this.#connected && !this.#closed;
  }

  /** Opens the signaling connection and sends `connect`. */
  open(): void {
    if (this.#closed || this.#ws) return;
    const ws = new WebSocket(this.#ticket.url);
    this.#ws = ws;
    // Made now, not when the offer comes: the browser makes its certificate and sets the connection
    // up while the room connects and sends its offer (answering a fresh one took 60-190 ms).
    this.#pc = this.#newPeer();
    ws.onopen = () => {
      const t = this.#ticket;
      this.#send({ type: 'connect', role: 'downstream', channel_id: t.roomId, multistream: true, metadata: { access_token: t.token }, video: { codec_type: t.codec }, audio: false });
    };
    ws.onmessage = (event: MessageEvent) => {
      let m: SignalingMessage;
      try {
        m = JSON.parse(String(event.data)) as SignalingMessage;
      } catch {
        return;
      }
      if (this.#closed || typeof m !== 'object' || m === null) return;
      if (m.type === 'ping') this.#send({ type: 'pong' });
      else if (m.type === 'offer') this.#answer(m, 'answer');
      else if (m.type === 'update') this.#answer(m, 'update');
      else if (m.type === 're-offer') this.#answer(m, 're-answer');
    };
    ws.onclose = (event: CloseEvent) => {
      if (this.#closed) return;
      this.#end(event.reason === 'RAPI-INVALID-TOKEN' ? 'The service refused the ticket; asking for a new one.' : `The room connection closed${event.reason ? ` (${event.reason})` : ''}; rejoining.`);
    };
  }

  /** The streams the room plays now: m-lines the last offer left inactive, ended tracks and this page's own stream have none. */
  streams(): RoomStream[] {
    const pc = this.#pc;
    if (!pc || this.#closed) return [];
    const out: RoomStream[] = [];
    for (const t of pc.getTransceivers()) {
      const stream = t.mid === null ? undefined : this.#streams.get(t.mid);
      const dir = t.currentDirection ?? t.direction;
      if (!stream || (dir !== 'recvonly' && dir !== 'sendrecv')) continue;
      if (!stream.getVideoTracks().some((track) => track.readyState === 'live')) continue;
      if (!out.some((s) => s.streamId === stream.id)) out.push({ streamId: stream.id, stream });
    }
    return out;
  }

  /** Leaves the room (a `disconnect` first, when the socket is open) and closes everything; idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#stalled);
    const ws = this.#ws;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      try {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'disconnect' }));
        ws.close(1000);
      } catch {
        // Already closed.
      }
    }
    this.#pc?.close();
    this.#streams.clear();
  }

  #send(m: Record<string, unknown>): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(m));
  }

  #end(why: string): void {
    if (this.#closed) return;
    this.close();
    this.#events.ended(why);
  }

  #newPeer(): RTCPeerConnection {
    const pc = new RTCPeerConnection();
    pc.ontrack = (event) => {
      const stream = event.streams[0];
      if (stream && stream.id !== 'default' && stream.id !== this.#clientId && event.transceiver.mid !== null) this.#streams.set(event.transceiver.mid, stream);
      if (!this.#closed) this.#events.streams();
    };
    pc.onicecandidate = (event) => {
      if (event.candidate?.candidate) this.#send({ type: 'candidate', candidate: event.candidate.candidate });
    };
    pc.onconnectionstatechange = () => {
      if (this.#closed) return;
      const s = pc.connectionState;
      if (s === 'connected') {
        clearTimeout(this.#stalled);
        this.#connected = true;
        this.#events.connected();
      } else if (s === 'failed') {
        this.#end('The picture was lost; rejoining.');
      } else if (s === 'disconnected') {
        clearTimeout(this.#stalled);
        this.#stalled = setTimeout(() => {
          if (pc.connectionState === 'disconnected') this.#end('The picture stalled; rejoining.');
        }, DISCONNECTED_MS);
      }
    };
    return pc;
  }

  #answer(m: SignalingMessage, answerType: 'answer' | 'update' | 're-answer'): void {
    this.#negotiations = this.#negotiations.then(() => this.#negotiate(m, answerType));
  }

  async #negotiate(m: SignalingMessage, answerType: 'answer' | 'update' | 're-answer'): Promise<void> {
    const pc = this.#pc;
    if (typeof m.sdp !== 'string' || this.#closed || !pc) return;
    try {
      if (answerType === 'answer') {
        this.#clientId = m.client_id;
        if (Array.isArray(m.config?.iceServers)) pc.setConfiguration({ ...pc.getConfiguration(), iceServers: m.config.iceServers });
      }
      await pc.setRemoteDescription({ type: 'offer', sdp: m.sdp });
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      if (this.#closed) return;
      this.#send({ type: answerType, sdp: answer.sdp });
      this.#events.streams();
    } catch (err) {
      this.#end(`The room's offer could not be answered (${err instanceof Error ? err.message : String(err)}); rejoining.`);
    }
  }
}
