import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { closeCodes, NORMAL_CLOSE, type CloseReason } from './close-reasons';
import { parseConnect, type ConnectRequest } from './connect-message';
import { SdpError, type MediaPeer } from './media-peer';
import type { StreamingSandboxOptions } from './options';
import type { Direction, RoomStore } from './rooms';

// 're-answer' is the name later Sora versions give the reply to a renegotiation; both are accepted.
const KNOWN_TYPES = new Set(['connect', 'answer', 'candidate', 'pong', 'update', 're-answer', 'disconnect']);

/** What a session needs from the module around it. */
export interface SessionHost {
  readonly options: StreamingSandboxOptions;
  readonly store: RoomStore;
  /** Fault switches set through the admin API. */
  readonly faults: { stopPings: boolean; ignorePongs: boolean };
  /** Sessions that passed connect, for the connection limits. */
  countAdmitted(roomId?: string): number;
  /** `clientId` is the session's client_id: an upstream's relayed stream carries it as its msid stream id. */
  createPeer(roomId: string, request: ConnectRequest, clientId: string): MediaPeer;
  /** Called once when the session is over, with the promise of its peer's closing. */
  forget(session: SignalingSession, released: Promise<void>): void;
}

type Phase = 'waiting-connect' | 'verifying' | 'offered' | 'active' | 'closed';

/**
 * One Sora-style signaling session over one WebSocket: connect -> offer -> answer (+ candidates),
 * pings while alive, and a close reason from the spec's table for every fault it can detect.
 */
export class SignalingSession {
  readonly clientId = randomUUID();
  #phase: Phase = 'waiting-connect';
  #room?: string;
  #direction?: Direction;
  #peer?: MediaPeer;
  #counted = false;
  readonly #timers = new Set<NodeJS.Timeout>();
  #answerTimer?: NodeJS.Timeout;
  #pongTimer?: NodeJS.Timeout;
  #pingTimer?: NodeJS.Timeout;
  /** Pongs received, for diagnosis (and for tests that wait on pongs instead of the clock). */
  pongs = 0;

  /** DTLS packets the client sent before the server's DTLS side started, handed to it then (see holdEarlyDtls). */
  get earlyDtlsPackets(): number {
    return this.#peer?.earlyDtlsPackets ?? 0;
  }

  readonly #ws: WebSocket;
  readonly #host: SessionHost;

  constructor(ws: WebSocket, host: SessionHost) {
    this.#ws = ws;
    this.#host = host;
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => this.#finish());
    // Without a listener an 'error' event would throw; the 'close' that follows cleans up.
    ws.on('error', () => undefined);
    this.#after(host.options.connectWaitTimeoutMs, () => {
      if (this.#phase === 'waiting-connect') this.close('CONNECT-WAIT-TIMEOUT');
    });
  }

  /** The room this session joined, once connect was accepted. */
  get roomId(): string | undefined {
    return this.#room;
  }

  /** `up` or `down` once connect was accepted. */
  get role(): Direction | undefined {
    return this.#direction;
  }

  /** Whether connect was accepted (the session counts toward the connection limits). */
  get admitted(): boolean {
    return this.#phase === 'verifying' || this.#phase === 'offered' || this.#phase === 'active';
  }

  /** Where the session stands, for the admin view. */
  get state(): Phase {
    return this.#phase;
  }

  /** Ends the session with a spec reason (or a normal close), then releases everything. */
  close(reason?: CloseReason, code: number = reason ? closeCodes[reason] : NORMAL_CLOSE): void {
    if (this.#phase === 'closed') return;
    try {
      this.#ws.close(code, reason ?? '');
    } catch {
      this.#ws.terminate();
    }
    this.#finish();
  }

  /** Cuts the TCP connection without a close frame, like a network drop. */
  drop(): void {
    this.#ws.terminate();
    this.#finish();
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#phase === 'closed') return;
    let message: unknown;
    try {
      if (isBinary) throw new Error('binary frame');
      message = JSON.parse(rawText(data));
    } catch {
      this.close('FAILURE-JSON-DECODE');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.close('MISSING-TYPE');
      return;
    }
    const body = message as Record<string, unknown>;
    if (typeof body.type !== 'string') {
      this.close('MISSING-TYPE');
      return;
    }
    if (!KNOWN_TYPES.has(body.type)) {
      this.close('UNKNOWN-TYPE');
      return;
    }
    switch (body.type) {
      case 'connect':
        if (this.#phase === 'waiting-connect') this.#guard(this.#onConnect(body));
        break;
      case 'answer':
        if (this.#phase === 'offered') this.#guard(this.#onAnswer(body.sdp, false));
        break;
      case 'update':
      case 're-answer':
        if (this.#phase === 'active') this.#guard(this.#onAnswer(body.sdp, true));
        break;
      case 'candidate':
        this.#onCandidate(body.candidate);
        break;
      case 'pong':
        this.pongs++;
        if (!this.#host.faults.ignorePongs && this.#pongTimer) this.#armPongWatch();
        break;
      case 'disconnect':
        this.close();
        break;
    }
  }

  /** A fault inside the sandbox ends this session, never the process. */
  #guard(work: Promise<void>): void {
    work.catch(() => this.close('INTERNAL-ERROR'));
  }

  async #onConnect(message: Record<string, unknown>): Promise<void> {
    const { options, store } = this.#host;
    const request = parseConnect(message, options.bitRateLimitKbps);
    if (typeof request === 'string') {
      this.close(request);
      return;
    }
    const verdict = store.verifyTicket(request.token, request.channelId, request.direction);
    if (typeof verdict === 'string') {
      this.close('RAPI-INVALID-TOKEN');
      return;
    }
    if (this.#host.countAdmitted() >= options.maxConnections) {
      this.close('EXCEED-MAX-CONNECTIONS');
      return;
    }
    if (this.#host.countAdmitted(verdict.roomId) >= options.maxConnectionsPerChannel) {
      this.close('RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS');
      return;
    }
    this.#phase = 'verifying';
    this.#room = verdict.roomId;
    this.#direction = request.direction;
    const peer = this.#host.createPeer(verdict.roomId, request, this.clientId);
    this.#peer = peer;
    peer.onUpdate((sdp) => this.#send({ type: 'update', sdp }));
    peer.onFailed(() => this.close('TRANSPORT-INTERNAL-ERROR'));
    let sdp: string;
    try {
      sdp = await peer.createOffer();
    } catch {
      this.close('SIGNALING-INTERNAL-ERROR');
      return;
    }
    if (this.#phase !== 'verifying') return;
    this.#phase = 'offered';
    this.#send({
      type: 'offer',
      sdp,
      client_id: this.clientId,
      connection_id: this.clientId,
      config: { iceServers: [], iceTransportPolicy: 'all' },
    });
    this.#answerTimer = this.#after(options.answerWaitTimeoutMs, () => {
      if (this.#phase === 'offered') this.close('CONNECTION-CREATED-WAIT-TIMEOUT-ERROR');
    });
    this.#startPings();
  }

  async #onAnswer(sdp: unknown, isUpdate: boolean): Promise<void> {
    if (typeof sdp !== 'string' || sdp.trim() === '') {
      this.close('FAILURE-MISSING-SDP');
      return;
    }
    const peer = this.#peer;
    if (!peer) return;
    try {
      await peer.acceptAnswer(sdp);
    } catch (error) {
      this.close(error instanceof SdpError ? error.reason : 'FAILURE-SDP-PARSE');
      return;
    }
    if (isUpdate || this.#phase !== 'offered') return;
    this.#phase = 'active';
    this.#clear(this.#answerTimer);
    if (this.#room && this.#direction) {
      this.#host.store.adjustCount(this.#room, this.#direction, 1);
      this.#counted = true;
    }
  }

  #onCandidate(candidate: unknown): void {
    if (typeof candidate !== 'string') {
      this.close('RAPI-INVALID-PARAMETER');
      return;
    }
    // The client may trickle an end-of-candidates marker as an empty string: nothing to add.
    const line = candidate.trim().replace(/^a=/, '');
    if (line !== '') void this.#peer?.addCandidate(line);
  }

  #startPings(): void {
    const { pingIntervalMs } = this.#host.options;
    this.#pingTimer = setInterval(() => {
      if (!this.#host.faults.stopPings) this.#send({ type: 'ping' });
    }, Math.max(1, pingIntervalMs));
    this.#timers.add(this.#pingTimer);
    this.#armPongWatch();
  }

  #armPongWatch(): void {
    this.#clear(this.#pongTimer);
    this.#pongTimer = this.#after(this.#host.options.pongTimeoutMs, () => this.close('PONG-TIMEOUT-ERROR'));
  }

  #send(message: object): void {
    if (this.#phase === 'closed' || this.#ws.readyState !== this.#ws.OPEN) return;
    this.#ws.send(JSON.stringify(message), (error) => {
      if (error) this.drop();
    });
  }

  #after(ms: number, run: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  #clear(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.#timers.delete(timer);
  }

  /** Releases timers, the peer and the room counts; runs once whichever way the session ended. */
  #finish(): void {
    if (this.#phase === 'closed') return;
    this.#phase = 'closed';
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    if (this.#counted && this.#room && this.#direction) this.#host.store.adjustCount(this.#room, this.#direction, -1);
    this.#counted = false;
    this.#host.forget(this, this.#peer ? this.#peer.close() : Promise.resolve());
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
