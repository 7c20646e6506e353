import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { MediaStreamTrack, PictureLossIndication, type RTCPeerConnection, type RTCRtpReceiver, type RTCIceServer } from 'werift';
import type { Ticket } from '../streaming/types';
import { connectMessage, type ResolvedConnectSettings } from './connect';
import { SignalingError, errorFromClose } from './close-reasons';
import { parseServerMessage, type ServerMessage } from './messages';
import { candidateAllowed, createPeer, loopbackCandidatesOnly } from './peer';
import { SilenceWatch, inboundOnSelectedPairs } from './liveness';

/** Timers of one signaling attempt, in ms. */
export interface ConnectionTimeouts {
  /** From opening the socket until the media connection is up. */
  signalingMs: number;
  /** How long the media connection may stay failed/disconnected before the attempt is given up. */
  iceGraceMs: number;
  /**
   * With nothing at all received on the media connection (not even ICE consent checks, which a live
   * peer sends every few seconds) for this long, it counts as disconnected and iceGraceMs begins.
   */
  iceSilenceMs: number;
  /** Once the server has pinged, how long it may stay silent before the socket counts as dead. */
  idleMs: number;
}

/** Everything one attempt needs. */
export interface ConnectionOptions {
  /** Only its url and id are kept as they are; the token goes to a private field. */
  ticket: Ticket;
  settings: ResolvedConnectSettings;
  timeouts: ConnectionTimeouts;
  loopbackOnly?: boolean;
  iceServers?: RTCIceServer[];
}

/** Events of one signaling attempt. */
export interface ConnectionEvents {
  /** Media is flowing (peer connection state 'connected'). */
  connected: [{ clientId?: string }];
  /** A remote media track arrived (downstream). */
  track: [MediaStreamTrack, RTCRtpReceiver];
  /** The server asked for a key frame (upstream). */
  keyframeRequest: [];
  /** The server's update (or re-offer) was answered. */
  renegotiated: [];
  /** An offer, first or later, was answered: what is received may have changed (see remoteVideo()). */
  negotiated: [];
  /** A notify or push message, passed through as received, with the ticket token masked. */
  notice: [Record<string, unknown>];
  /** The attempt is over; emitted once, unless close() ended it. */
  ended: [SignalingError];
}

/** One video m-line on which the server sends to us, as the last answered offer has it. */
export interface RemoteVideo {
  receiver: RTCRtpReceiver;
  track: MediaStreamTrack;
  /** The stream id of the m-line's `a=msid` (the publisher's client_id on the real service); undefined without msid. */
  streamId?: string;
  /** The track id of the m-line's `a=msid`. */
  msidTrackId?: string;
  mid?: string;
  codec?: string;
}

/**
 * One signaling attempt: a WebSocket, a connect message, the answer to the server's offer, and the
 * peer connection that results. It never retries; the session decides what happens after `ended`.
 */
export class SignalingConnection extends EventEmitter<ConnectionEvents> {
  #ws?: WebSocket;
  #pc?: RTCPeerConnection;
  #finished = false;
  #isConnected = false;
  #answerSent = false;
  #queuedCandidates: string[] = [];
  #negotiation: Promise<void> = Promise.resolve();
  #signalingTimer?: NodeJS.Timeout;
  #graceTimer?: NodeJS.Timeout;
  #idleTimer?: NodeJS.Timeout;
  #silenceWatch?: SilenceWatch;
  #sendTrack?: MediaStreamTrack;
  #clientId?: string;
  #closedPromise?: Promise<void>;
  readonly #options: Omit<ConnectionOptions, 'ticket'>;
  readonly #ticket: { id: string; url: string };
  // A private field: util.inspect and JSON.stringify of the connection never reach it.
  readonly #token: string;

  constructor(options: ConnectionOptions) {
    super();
    const { ticket, ...rest } = options;
    this.#options = rest;
    this.#ticket = { id: ticket.id, url: ticket.url };
    this.#token = ticket.access_token;
  }

  /** The track to write outgoing RTP into (upstream only, once the offer is answered). */
  get outgoingTrack(): MediaStreamTrack | undefined {
    return this.#isConnected ? this.#sendTrack : undefined;
  }

  /** The client_id the server gave this attempt in its offer. */
  get ownClientId(): string | undefined {
    return this.#clientId;
  }

  /**
   * The video m-lines the server currently sends on. An m-line that went inactive is left out (werift
   * keeps its last msid on the receiver, so the negotiated direction is what tells).
   */
  remoteVideo(): RemoteVideo[] {
    const pc = this.#pc;
    if (!pc || this.#finished) return [];
    const out: RemoteVideo[] = [];
    for (const t of pc.getTransceivers()) {
      if (t.kind !== 'video' || (t.currentDirection !== 'recvonly' && t.currentDirection !== 'sendrecv')) continue;
      const receiver = t.receiver;
      out.push({
        receiver,
        track: receiver.track,
        streamId: receiver.remoteStreamId,
        msidTrackId: receiver.remoteTrackId,
        mid: t.mid ?? undefined,
        codec: t.codecs[0]?.mimeType,
      });
    }
    return out;
  }

  /** Opens the socket and sends connect. Failures arrive as `ended`, never as a throw. */
  start(): void {
    const { timeouts } = this.#options;
    const ticket = this.#ticket;
    this.#signalingTimer = setTimeout(
      () => this.#fail(SignalingError.from({ reason: 'SIGNALING-TIMEOUT', detail: `${timeouts.signalingMs} ms` })),
      timeouts.signalingMs,
    );
    let ws: WebSocket;
    try {
      ws = new WebSocket(ticket.url, { perMessageDeflate: false, handshakeTimeout: timeouts.signalingMs });
    } catch (err) {
      this.#fail(SignalingError.from({ reason: 'CONNECT-FAILED', detail: safeDetail(err), rejoin: 'never' }));
      return;
    }
    this.#ws = ws;
    let opened = false;
    let socketError: string | undefined;
    ws.on('open', () => {
      opened = true;
      this.#send(connectMessage(this.#options.settings, ticket.id, this.#token));
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.#onMessage(data.toString());
    });
    ws.on('error', (err) => {
      socketError = safeDetail(err);
    });
    ws.on('close', (code, reason) => {
      if (this.#finished) return;
      if (!opened) {
        this.#fail(SignalingError.from({ reason: 'CONNECT-FAILED', detail: socketError ?? `close code ${code}` }));
      } else {
        this.#fail(errorFromClose(code, reason.toString()));
      }
    });
  }

  /** Sends disconnect, closes socket and peer connection, clears timers. Idempotent. */
  close(): Promise<void> {
    this.#closedPromise ??= this.#teardown(true);
    return this.#closedPromise;
  }

  #fail(err: SignalingError): void {
    if (this.#finished) return;
    void this.close();
    this.emit('ended', err);
  }

  async #teardown(sayGoodbye: boolean): Promise<void> {
    this.#finished = true;
    clearTimeout(this.#signalingTimer);
    clearTimeout(this.#graceTimer);
    clearTimeout(this.#idleTimer);
    this.#silenceWatch?.stop();
    const ws = this.#ws;
    const socketClosed = ws ? waitForSocketClose(ws) : Promise.resolve();
    if (ws && ws.readyState === WebSocket.OPEN) {
      if (sayGoodbye) this.#send(JSON.stringify({ type: 'disconnect' }));
      ws.close(1000);
    } else if (ws && ws.readyState === WebSocket.CONNECTING) {
      ws.terminate();
    }
    this.#sendTrack?.stop();
    const pc = this.#pc;
    await Promise.all([socketClosed, pc ? pc.close().catch(() => undefined) : undefined]);
  }

  #send(text: string): void {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(text, (err) => {
      if (err && !this.#finished) this.#fail(SignalingError.from({ reason: 'CONNECTION-LOST', detail: safeDetail(err) }));
    });
  }

  #onMessage(text: string): void {
    if (this.#finished) return;
    const msg = parseServerMessage(text);
    if (!msg) return; // The server's own garbage is not worth dropping a working session for.
    this.#armIdleTimer(msg);
    switch (msg.type) {
      case 'offer':
        this.#clientId = typeof msg.client_id === 'string' ? msg.client_id : undefined;
        this.#negotiate(() => this.#answerOffer(msg));
        break;
      case 'update':
      case 're-offer':
        this.#negotiate(() => this.#answerUpdate(msg.sdp, msg.type === 'update' ? 'update' : 're-answer'));
        break;
      case 'ping':
        this.#send(JSON.stringify({ type: 'pong' }));
        break;
      case 'notify':
      case 'push':
        this.emit('notice', maskSecret(msg, this.#token) as Record<string, unknown>);
        break;
      default:
        break;
    }
  }

  #armIdleTimer(msg: ServerMessage): void {
    if (msg.type !== 'ping' && !this.#idleTimer) return;
    clearTimeout(this.#idleTimer);
    const ms = this.#options.timeouts.idleMs;
    this.#idleTimer = setTimeout(() => this.#fail(SignalingError.from({ reason: 'SERVER-SILENT', detail: `${ms} ms without a message` })), ms);
  }

  // Offer and updates are applied one at a time, in arrival order.
  #negotiate(step: () => Promise<void>): void {
    this.#negotiation = this.#negotiation.then(async () => {
      if (this.#finished) return;
      try {
        await step();
      } catch (err) {
        this.#fail(SignalingError.from({ reason: 'PROTOCOL-ERROR', detail: safeDetail(err) }));
      }
    });
  }

  async #answerOffer(msg: Extract<ServerMessage, { type: 'offer' }>): Promise<void> {
    if (this.#pc) {
      await this.#answerUpdate(msg.sdp, 'answer');
      return;
    }
    const { settings, loopbackOnly, iceServers } = this.#options;
    const pc = createPeer({ video: settings.video, audio: settings.audio, loopbackOnly, iceServers }, msg.config?.iceServers);
    this.#pc = pc;
    pc.onIceCandidate.subscribe((c) => {
      const candidate = c?.candidate;
      if (!candidate || !candidateAllowed(candidate, loopbackOnly)) return;
      const text = candidate.startsWith('candidate:') ? candidate : `candidate:${candidate}`;
      if (this.#answerSent) this.#send(JSON.stringify({ type: 'candidate', candidate: text }));
      else this.#queuedCandidates.push(text);
    });
    pc.connectionStateChange.subscribe((state) => this.#onPeerState(state));
    pc.onTrack.subscribe((track) => {
      const t = pc.getTransceivers().find((x) => x.receiver.tracks.includes(track));
      if (t && settings.role === 'downstream') this.emit('track', track, t.receiver);
    });
    await pc.setRemoteDescription({ type: 'offer', sdp: msg.sdp });
    this.#prepareTransceivers(pc);
    if (settings.role === 'upstream' && settings.video !== false && !this.#sendTrack) {
      throw new Error('the offer has no video m-line to publish on');
    }
    // A DTLS close alert from the server ends media at once; without one, ICE notices a vanished
    // peer only when consent expires (30 s in werift).
    const dtls = pc.getTransceivers()[0]?.dtlsTransport;
    dtls?.onStateChange.subscribe((state) => {
      if (state === 'closed' || state === 'failed') this.#onPeerState('failed');
    });
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    this.#send(JSON.stringify({ type: 'answer', sdp: this.#outgoingSdp(pc.localDescription?.sdp ?? answer.sdp) }));
    this.#answerSent = true;
    for (const c of this.#queuedCandidates.splice(0)) this.#send(JSON.stringify({ type: 'candidate', candidate: c }));
    this.emit('negotiated');
  }

  #prepareTransceivers(pc: RTCPeerConnection): void {
    for (const t of pc.getTransceivers()) {
      if (this.#options.settings.role === 'downstream') {
        t.setDirection('recvonly');
        continue;
      }
      if (t.kind === 'video' && !this.#sendTrack) {
        this.#sendTrack = new MediaStreamTrack({ kind: 'video' });
        pc.addTrack(this.#sendTrack);
        t.setDirection('sendonly');
        // A PLI can arrive on either object depending on how werift routed the RTCP.
        t.sender.onPictureLossIndication.subscribe(() => this.emit('keyframeRequest'));
        t.receiver.onRtcp.subscribe((p) => {
          if (isPli(p)) this.emit('keyframeRequest');
        });
      } else {
        t.setDirection('inactive');
      }
    }
  }

  async #answerUpdate(sdp: string, replyType: 'update' | 're-answer' | 'answer'): Promise<void> {
    const pc = this.#pc;
    if (!pc) return;
    await pc.setRemoteDescription({ type: 'offer', sdp });
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    this.#send(JSON.stringify({ type: replyType, sdp: this.#outgoingSdp(pc.localDescription?.sdp ?? answer.sdp) }));
    this.emit('renegotiated');
    this.emit('negotiated');
  }

  // Loopback mode promises 127.0.0.1 only: werift also lists the machine's other addresses.
  #outgoingSdp(sdp: string): string {
    return this.#options.loopbackOnly ? loopbackCandidatesOnly(sdp) : sdp;
  }

  #watchSilence(): void {
    const pc = this.#pc;
    if (!pc || this.#silenceWatch) return;
    this.#silenceWatch = new SilenceWatch(
      () => inboundOnSelectedPairs(pc),
      this.#options.timeouts.iceSilenceMs,
      (silent) => this.#onPeerState(silent ? 'disconnected' : 'connected'),
    );
    this.#silenceWatch.start();
  }

  #onPeerState(state: string): void {
    if (this.#finished) return;
    if (state === 'connected') {
      clearTimeout(this.#graceTimer);
      this.#graceTimer = undefined;
      if (!this.#isConnected) {
        this.#isConnected = true;
        clearTimeout(this.#signalingTimer);
        this.#watchSilence();
        this.emit('connected', { clientId: this.#clientId });
      }
    } else if ((state === 'failed' || state === 'disconnected') && this.#isConnected && !this.#graceTimer) {
      const ms = this.#options.timeouts.iceGraceMs;
      this.#graceTimer = setTimeout(() => this.#fail(SignalingError.from({ reason: 'ICE-FAILED', detail: `${state} for ${ms} ms` })), ms);
    }
  }
}

function isPli(packet: unknown): boolean {
  return (packet as { feedback?: unknown }).feedback instanceof PictureLossIndication;
}

function waitForSocketClose(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    // A peer that never answers the closing handshake must not keep the socket open.
    const timer = setTimeout(() => ws.terminate(), 2000);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Copies a server message with every string equal to (or containing) the token masked. */
function maskSecret(value: unknown, secret: string): unknown {
  if (typeof value === 'string') return secret && value.includes(secret) ? value.split(secret).join('[redacted]') : value;
  if (Array.isArray(value)) return value.map((v) => maskSecret(v, secret));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecret(v, secret)]));
  }
  return value;
}

// Error texts from ws/werift carry addresses at most; the ticket token is never part of them.
function safeDetail(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}
