import { randomUUID } from 'node:crypto';
import { MediaStreamTrack, PictureLossIndication, RtcpPayloadSpecificFeedback, type RtcpPacket, type RTCRtpTransceiver } from 'werift';
import type { ConnectRequest, VideoCodec } from './connect-message';
import { MediaPeer } from './media-peer';

/** Shortest gap between two keyframe requests sent to one publisher; viewers often ask in bursts. */
const KEYFRAME_REQUEST_GAP_MS = 100;

/** One upstream's video as the SFU relays it: a local track every viewer's sender reads from. */
export class Feed {
  readonly id = randomUUID();
  readonly track = new MediaStreamTrack({ kind: 'video' });
  private remoteSsrc?: number;
  private lastKeyframeRequest = 0;

  constructor(
    readonly codec: VideoCodec,
    private readonly transceiver: RTCRtpTransceiver,
  ) {
    transceiver.onTrack.subscribe((remote) => {
      remote.onReceiveRtp.subscribe((rtp) => {
        this.remoteSsrc = rtp.header.ssrc;
        if (!this.track.stopped) this.track.writeRtp(rtp);
      });
    });
  }

  /** Asks the publisher for a keyframe (RTCP PLI), e.g. because a viewer joined or lost one. */
  requestKeyframe(): void {
    const now = Date.now();
    if (this.remoteSsrc === undefined || now - this.lastKeyframeRequest < KEYFRAME_REQUEST_GAP_MS) return;
    this.lastKeyframeRequest = now;
    this.transceiver.receiver.sendRtcpPLI(this.remoteSsrc).catch(() => {
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
  private feed?: Feed;

  constructor(
    private readonly relay: RoomRelay,
    request: ConnectRequest,
    iceGatheringTimeoutMs: number,
  ) {
    super({ video: request.video?.codec, audio: request.audio?.codec }, iceGatheringTimeoutMs);
    if (request.video) {
      const transceiver = this.pc.addTransceiver('video', { direction: 'recvonly' });
      this.feed = new Feed(request.video.codec, transceiver);
      relay.feeds.add(this.feed);
    }
    if (request.audio) this.pc.addTransceiver('audio', { direction: 'recvonly' });
  }

  protected override released(): void {
    if (!this.feed) return;
    this.relay.feeds.delete(this.feed);
    this.feed.track.stop();
    this.feed = undefined;
    this.relay.changed();
  }

  protected override answered(): void {
    // Viewers already waiting get this feed as soon as the publisher's answer is in.
    this.relay.changed();
  }
}

interface Slot {
  transceiver: RTCRtpTransceiver;
  feed?: Feed;
}

/**
 * A downstream's peer: one sendonly video m-line per feed of its codec in the room. A feed that
 * appears when every m-line is taken is added by renegotiating (the server sends `update`).
 */
export class ViewerPeer extends MediaPeer {
  private readonly slots: Slot[] = [];
  private readonly codec?: VideoCodec;

  constructor(
    private readonly relay: RoomRelay,
    request: ConnectRequest,
    iceGatheringTimeoutMs: number,
  ) {
    super({ video: request.video?.codec, audio: request.audio?.codec }, iceGatheringTimeoutMs);
    this.codec = request.video?.codec;
    if (this.codec) {
      const feeds = [...relay.feeds].filter((feed) => feed.codec === this.codec);
      if (feeds.length === 0) this.addSlot();
      for (const feed of feeds) this.addSlot(feed);
    }
    // Audio is not relayed; the m-line is there so a client that asked for audio gets a valid answer path.
    if (request.audio) this.pc.addTransceiver('audio', { direction: 'sendonly' });
    relay.viewers.add(this);
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') for (const slot of this.slots) slot.feed?.requestKeyframe();
    });
  }

  /** Brings the m-lines in line with the room's feeds, renegotiating when new ones are needed. */
  sync(): void {
    if (!this.codec || this.isClosed || this.isNegotiating) return;
    const live = new Set([...this.relay.feeds].filter((feed) => feed.codec === this.codec));
    for (const slot of this.slots) {
      if (slot.feed && !live.has(slot.feed)) {
        slot.feed = undefined;
        slot.transceiver.sender.replaceTrack(null).catch(() => undefined);
      }
    }
    const shown = new Set(this.slots.map((slot) => slot.feed));
    const waiting = [...live].filter((feed) => !shown.has(feed));
    const extra: Feed[] = [];
    for (const feed of waiting) {
      const free = this.slots.find((slot) => !slot.feed);
      if (free) this.attach(free, feed);
      else extra.push(feed);
    }
    if (extra.length > 0) {
      for (const feed of extra) this.addSlot(feed);
      this.renegotiate();
    }
  }

  protected override answered(): void {
    this.sync();
  }

  protected override released(): void {
    this.relay.viewers.delete(this);
  }

  private addSlot(feed?: Feed): void {
    const transceiver = feed
      ? this.pc.addTransceiver(feed.track, { direction: 'sendonly' })
      : this.pc.addTransceiver('video', { direction: 'sendonly' });
    const slot: Slot = { transceiver, feed };
    this.slots.push(slot);
    const onPli = (): void => slot.feed?.requestKeyframe();
    transceiver.sender.onPictureLossIndication.subscribe(onPli);
    // werift may hand a PLI to the receiver's RTCP path instead of the sender's: listen on both.
    transceiver.receiver.onRtcp.subscribe((packet) => {
      if (isPli(packet)) onPli();
    });
  }

  private attach(slot: Slot, feed: Feed): void {
    slot.feed = feed;
    slot.transceiver.sender.replaceTrack(feed.track).then(
      () => feed.requestKeyframe(),
      () => {
        slot.feed = undefined;
      },
    );
  }
}

function isPli(packet: RtcpPacket): boolean {
  return packet instanceof RtcpPayloadSpecificFeedback && packet.feedback instanceof PictureLossIndication;
}

/** The selective forwarding unit: rooms of feeds and viewers, peers created for signaling sessions. */
export class Sfu {
  private readonly rooms = new Map<string, RoomRelay>();

  constructor(private readonly iceGatheringTimeoutMs: number) {}

  /** Creates the server-side peer for an accepted connect. */
  createPeer(roomId: string, request: ConnectRequest): MediaPeer {
    const relay = this.relay(roomId);
    const peer =
      request.direction === 'up'
        ? new PublisherPeer(relay, request, this.iceGatheringTimeoutMs)
        : new ViewerPeer(relay, request, this.iceGatheringTimeoutMs);
    peer.onReleased(() => {
      if (relay.feeds.size === 0 && relay.viewers.size === 0 && this.rooms.get(roomId) === relay) this.rooms.delete(roomId);
    });
    return peer;
  }

  private relay(roomId: string): RoomRelay {
    let relay = this.rooms.get(roomId);
    if (!relay) {
      relay = new RoomRelay();
      this.rooms.set(roomId, relay);
    }
    return relay;
  }
}
