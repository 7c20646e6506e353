import { MediaStreamTrack, PictureLossIndication, RtcpPayloadSpecificFeedback, type RtcpPacket, type RTCRtpTransceiver } from 'werift';
import type { ConnectRequest, VideoCodec } from './connect-message';
import { startsKeyframe } from './keyframes';
import { MediaPeer } from './media-peer';

/** Shortest gap between two keyframe requests sent to one publisher; viewers often ask in bursts. */
const KEYFRAME_REQUEST_GAP_MS = 100;
/** A new viewer's key frame is asked for again this often until one has passed, for at most KEYFRAME_INSIST_MS. */
const KEYFRAME_RETRY_MS = 300;
const KEYFRAME_INSIST_MS = 3000;

/**
 * One upstream's video as the SFU relays it: a local track every viewer's sender reads from. Its
 * stream id is the publisher's client_id, as on the real service: viewers see it in `a=msid`.
 */
export class Feed {
  readonly track = new MediaStreamTrack({ kind: 'video' });
  /** Key frames relayed so far: a viewer waiting for one watches it grow. */
  keyframes = 0;
  #remoteSsrc?: number;
  #lastKeyframeRequest = 0;

  readonly #transceiver: RTCRtpTransceiver;

  constructor(readonly codec: VideoCodec, transceiver: RTCRtpTransceiver, readonly streamId: string) {
    this.#transceiver = transceiver;
    transceiver.onTrack.subscribe((remote) => {
      remote.onReceiveRtp.subscribe((rtp) => {
        this.#remoteSsrc = rtp.header.ssrc;
        if (startsKeyframe(this.codec, rtp.payload)) this.keyframes++;
        if (!this.track.stopped) this.track.writeRtp(rtp);
      });
    });
  }

  /** Asks the publisher for a keyframe (RTCP PLI), e.g. because a viewer joined or lost one. */
  requestKeyframe(): void {
    const now = Date.now();
    if (this.#remoteSsrc === undefined || now - this.#lastKeyframeRequest < KEYFRAME_REQUEST_GAP_MS) return;
    this.#lastKeyframeRequest = now;
    this.#transceiver.receiver.sendRtcpPLI(this.#remoteSsrc).catch(() => {
      // The publisher may be gone already; the next request or its closing settles it.
    });
  }
}

/** The live feeds and viewers of one room. */
class RoomRelay {
  readonly feeds = new Set<Feed>();
  readonly viewers = new Set<ViewerPeer>();

  changed(): void {
    for (const viewer of this.viewers) viewer.sync();
  }
}

/** An upstream's peer: receives video (and audio, which is discarded) and publishes a feed. */
export class PublisherPeer extends MediaPeer {
  #feed?: Feed;

  readonly #relay: RoomRelay;

  constructor(relay: RoomRelay, request: ConnectRequest, clientId: string, iceGatheringTimeoutMs: number) {
    super({ video: request.video?.codec, audio: request.audio?.codec }, iceGatheringTimeoutMs);
    this.#relay = relay;
    if (request.video) {
      const transceiver = this.pc.addTransceiver('video', { direction: 'recvonly' });
      this.#feed = new Feed(request.video.codec, transceiver, clientId);
      relay.feeds.add(this.#feed);
    }
    if (request.audio) this.pc.addTransceiver('audio', { direction: 'recvonly' });
  }

  protected override released(): void {
    if (!this.#feed) return;
    this.#relay.feeds.delete(this.#feed);
    this.#feed.track.stop();
    this.#feed = undefined;
    this.#relay.changed();
  }

  protected override answered(): void {
    // Viewers already waiting get this feed as soon as the publisher's answer is in.
    this.#relay.changed();
  }
}

/** One video m-line of a viewer. */
interface Slot {
  transceiver: RTCRtpTransceiver;
  feed?: Feed;
  /**
   * Emptied in the negotiation under way. It carries another feed only once the client has answered
   * that offer, so the client sees the m-line go inactive (its stream removed) before a new stream
   * id arrives on it: a transceiver is never handed to another publisher unannounced.
   */
  releasing: boolean;
}

/**
 * A downstream's peer: one video m-line per feed of its codec in the room, each `sendonly` with
 * `a=msid:<publisher client_id> <track id>`. Every change (a feed shown on an m-line, a feed that
 * left) is renegotiated with `update`: an m-line without a feed is `inactive` and carries no msid.
 */
export class ViewerPeer extends MediaPeer {
  readonly #slots: Slot[] = [];
  /** Feeds whose m-line this client rejected while they played on it. */
  readonly #declined = new WeakSet<Feed>();
  readonly #keyframeTimers = new Set<NodeJS.Timeout>();
  #connected = false;
  readonly #codec?: VideoCodec;

  readonly #relay: RoomRelay;

  constructor(relay: RoomRelay, request: ConnectRequest, iceGatheringTimeoutMs: number) {
    super({ video: request.video?.codec, audio: request.audio?.codec }, iceGatheringTimeoutMs);
    this.#relay = relay;
    this.#codec = request.video?.codec;
    if (this.#codec) {
      const feeds = [...relay.feeds].filter((feed) => feed.codec === this.#codec);
      // With no feed yet, one inactive m-line: the first feed takes it through an update.
      if (feeds.length === 0) this.#addSlot();
      for (const feed of feeds) this.#addSlot(feed);
    }
    // Audio is not relayed, so the m-line a client that asked for audio gets belongs to no publisher:
    // it is inactive, which gives the page no track. A sendonly one without msid would give a track in
    // a stream of its own ('default'), and a page that shows the stream of every new track would end
    // on that one, without video.
    if (request.audio) this.pc.addTransceiver('audio', { direction: 'inactive' });
    relay.viewers.add(this);
    this.pc.connectionStateChange.subscribe((state) => {
      if (state !== 'connected') return;
      this.#connected = true;
      for (const slot of this.#slots) if (slot.feed) this.#insistOnKeyframe(slot.feed);
    });
  }

  /** Brings the m-lines in line with the room's feeds; renegotiates when anything changed. */
  sync(): void {
    if (!this.#codec || this.isClosed || this.isNegotiating) return;
    const live = new Set([...this.#relay.feeds].filter((feed) => feed.codec === this.#codec && !this.#declined.has(feed)));
    let changed = false;
    for (const slot of this.#slots) {
      if (slot.feed && !live.has(slot.feed)) {
        this.#hide(slot);
        changed = true;
      }
    }
    const shown = new Set(this.#slots.map((slot) => slot.feed));
    for (const feed of [...live].filter((f) => !shown.has(f))) {
      const free = this.#slots.find((slot) => !slot.feed && !slot.releasing);
      if (free) {
        this.#show(free, feed);
        changed = true;
      } else if (!this.#slots.some((slot) => slot.releasing)) {
        this.#addSlot(feed);
        changed = true;
      }
      // Otherwise the feed waits one negotiation for the m-line being emptied now (no m-line pile-up).
    }
    if (changed) this.renegotiate();
  }

  protected override answered(): void {
    for (const slot of this.#slots) slot.releasing = false;
    // An m-line the client rejected (port 0, as JSEP allows) is stopped for good: it never carries
    // a feed again. A feed the client refused on a live m-line is not offered to it again.
    for (const slot of this.#slots.filter((s) => isStopped(s.transceiver))) {
      if (slot.feed) this.#declined.add(slot.feed);
      this.#slots.splice(this.#slots.indexOf(slot), 1);
    }
    this.sync();
  }

  protected override released(): void {
    for (const timer of this.#keyframeTimers) clearTimeout(timer);
    this.#keyframeTimers.clear();
    this.#relay.viewers.delete(this);
  }

  /**
   * A viewer that starts on a feed needs a key frame: a publisher whose key frames are far apart
   * gets asked again every KEYFRAME_RETRY_MS until one has passed (a request can be lost, or sent
   * before the publisher's side could use it), for at most KEYFRAME_INSIST_MS.
   */
  #insistOnKeyframe(feed: Feed): void {
    const seen = feed.keyframes;
    const deadline = Date.now() + KEYFRAME_INSIST_MS;
    const ask = (): void => {
      if (this.isClosed || feed.keyframes > seen || Date.now() > deadline) return;
      feed.requestKeyframe();
      const timer = setTimeout(() => {
        this.#keyframeTimers.delete(timer);
        ask();
      }, KEYFRAME_RETRY_MS);
      this.#keyframeTimers.add(timer);
    };
    ask();
  }

  #addSlot(feed?: Feed): void {
    const transceiver = this.pc.addTransceiver('video', { direction: 'inactive' });
    const slot: Slot = { transceiver, releasing: false };
    this.#slots.push(slot);
    const onPli = (): void => slot.feed?.requestKeyframe();
    transceiver.sender.onPictureLossIndication.subscribe(onPli);
    // werift may hand a PLI to the receiver's RTCP path instead of the sender's: listen on both.
    transceiver.receiver.onRtcp.subscribe((packet) => {
      if (isPli(packet)) onPli();
    });
    if (feed) this.#show(slot, feed);
  }

  /** Puts a feed on an m-line under the feed's own stream id (sent with the next offer). */
  #show(slot: Slot, feed: Feed): void {
    slot.feed = feed;
    const { transceiver } = slot;
    transceiver.sender.streamId = feed.streamId;
    transceiver.setDirection('sendonly');
    transceiver.sender.replaceTrack(feed.track).then(
      () => (this.#connected ? this.#insistOnKeyframe(feed) : feed.requestKeyframe()),
      () => {
        // The feed's track ended already (its publisher left): the next sync empties the m-line.
      },
    );
  }

  /** Empties an m-line: inactive and without msid in the next offer. */
  #hide(slot: Slot): void {
    slot.feed = undefined;
    slot.releasing = true;
    slot.transceiver.sender.streamId = undefined;
    slot.transceiver.setDirection('inactive');
    slot.transceiver.sender.replaceTrack(null).catch(() => undefined);
  }
}

/** True once werift has settled an m-line as rejected or stopped (a port 0 answer). */
function isStopped(transceiver: RTCRtpTransceiver): boolean {
  return transceiver.stopped || transceiver.rejected || transceiver.stopping;
}

function isPli(packet: RtcpPacket): boolean {
  return packet instanceof RtcpPayloadSpecificFeedback && packet.feedback instanceof PictureLossIndication;
}

/** The selective forwarding unit: rooms of feeds and viewers, peers created for signaling sessions. */
export class Sfu {
  readonly #rooms = new Map<string, RoomRelay>();

  readonly #iceGatheringTimeoutMs: number;

  constructor(iceGatheringTimeoutMs: number) {
    this.#iceGatheringTimeoutMs = iceGatheringTimeoutMs;
  }

  /** Creates the server-side peer for an accepted connect. */
  createPeer(roomId: string, request: ConnectRequest, clientId: string): MediaPeer {
    const relay = this.#relay(roomId);
    const peer =
      request.direction === 'up'
        ? new PublisherPeer(relay, request, clientId, this.#iceGatheringTimeoutMs)
        : new ViewerPeer(relay, request, this.#iceGatheringTimeoutMs);
    peer.onReleased(() => {
      if (relay.feeds.size === 0 && relay.viewers.size === 0 && this.#rooms.get(roomId) === relay) this.#rooms.delete(roomId);
    });
    return peer;
  }

  #relay(roomId: string): RoomRelay {
    let relay = this.#rooms.get(roomId);
    if (!relay) {
      relay = new RoomRelay();
      this.#rooms.set(roomId, relay);
    }
    return relay;
  }
}
