import { dePacketizeRtpPackets, type RtpPacket } from 'werift';
import type { EncodedFrame, VideoCodec } from './types';
import { ReorderBuffer } from './reorder';
import { joinVp8Payloads, parseVp8Frame } from './vp8';
import { parseVp9Frame } from './vp9';
import { H264ParameterCache } from './h264';
import { startsFrame } from './frame-start';

/** Why the assembler wants a key frame from the sender. */
export type KeyframeReason = 'start' | 'loss' | 'undecodable';

/** Options of a frame assembler. */
export interface FrameAssemblerOptions {
  codec: VideoCodec;
  /** Called with each complete frame, in order. */
  onFrame: (frame: EncodedFrame) => void;
  /** Called when a key frame is needed (stream start, loss); the caller sends a PLI. */
  onKeyframeNeeded?: (reason: KeyframeReason) => void;
  /** Packets to wait for a missing one before calling it lost (default 32). */
  reorderWindow?: number;
}

const DEPACKETIZER_NAME: Record<Exclude<VideoCodec, 'VP8'>, 'VP9' | 'MPEG4/ISO/AVC'> = {
  VP9: 'VP9',
  H264: 'MPEG4/ISO/AVC',
};

/**
 * Turns RTP packets of one video stream into whole encoded frames. After loss, or before the first
 * key frame, frames are held back until a key frame arrives: a decoder cannot use them anyway.
 */
export class FrameAssembler {
  readonly #reorder: ReorderBuffer<RtpPacket>;
  readonly #h264 = new H264ParameterCache();
  #current: RtpPacket[] = [];
  #waiting = true;
  #size?: { width: number; height: number };
  #lastTs?: number;
  #tsBase = 0;
  #started = false;
  /**
   * After a gap (or at the start), the first packet may sit in the middle of a picture. Until the
   * picture it belongs to is over, its packets are thrown away: `afterGap` holds the timestamp of a
   * picture cut short by the gap, `discardTs` the timestamp being thrown away.
   */
  #afterGap: { ts?: number } | undefined = {};
  #discardTs?: number;
  readonly #options: FrameAssemblerOptions;

  constructor(options: FrameAssemblerOptions) {
    this.#options = options;
    this.#reorder = new ReorderBuffer((p) => p.header.sequenceNumber, options.reorderWindow ?? 32);
  }

  /** True until a key frame has arrived since the start or the last loss. */
  get waitingForKeyframe(): boolean {
    return this.#waiting;
  }

  /** Feeds one RTP packet of the stream. Never throws: a malformed packet counts as loss. */
  push(packet: RtpPacket): void {
    if (!this.#started) {
      this.#started = true;
      this.#options.onKeyframeNeeded?.('start');
    }
    const { ready, lostAt, restart } = this.#reorder.push(packet);
    if (restart) {
      // The sender restarted (or the stream broke off for thousands of packets): a new stream.
      this.reset();
      this.#started = true;
      this.#options.onKeyframeNeeded?.('loss');
      for (const p of restart) this.push(p);
      return;
    }
    ready.forEach((p, i) => {
      if (i === lostAt) this.#onLoss();
      this.#take(p);
    });
  }

  /** Forgets partial state; the next frame must be a key frame (used when the sender restarts). */
  reset(): void {
    this.#reorder.reset();
    this.#current = [];
    this.#waiting = true;
    this.#started = false;
    this.#afterGap = {};
    this.#discardTs = undefined;
    this.#h264.reset();
  }

  #take(p: RtpPacket): void {
    const ts = p.header.timestamp;
    if (this.#afterGap) {
      const cut = this.#afterGap.ts;
      this.#afterGap = undefined;
      // The rest of a picture whose packets went missing; with H264 multi-slice pictures it can
      // even hold whole IDR slices that would pass for a key frame.
      if (ts === cut || !startsFrame(this.#options.codec, p.payload)) this.#discardTs = ts;
    }
    if (this.#discardTs !== undefined) {
      // Packets arrive contiguous here, so a new timestamp is a new picture.
      if (ts === this.#discardTs) return;
      this.#discardTs = undefined;
    }
    const head = this.#current[0];
    if (head && head.header.timestamp !== ts) {
      // The previous frame's last packet carried no marker; it is still complete (no gap).
      this.#finish();
    }
    this.#current.push(p);
    if (p.header.marker) this.#finish();
  }

  #onLoss(): void {
    this.#afterGap = { ts: this.#current[0]?.header.timestamp ?? this.#discardTs };
    this.#current = [];
    this.#discardTs = undefined;
    this.#needKeyframe('loss');
  }

  #needKeyframe(reason: KeyframeReason): void {
    if (this.#waiting) return;
    this.#waiting = true;
    this.#options.onKeyframeNeeded?.(reason);
  }

  #finish(): void {
    const packets = this.#current;
    this.#current = [];
    if (packets.length === 0) return;
    let frame: EncodedFrame | undefined;
    try {
      frame = this.#build(packets);
    } catch {
      frame = undefined;
    }
    if (!frame) {
      this.#needKeyframe('undecodable');
      return;
    }
    if (this.#waiting && !frame.isKeyframe) return;
    this.#waiting = false;
    this.#options.onFrame(frame);
  }

  #build(packets: RtpPacket[]): EncodedFrame | undefined {
    const codec = this.#options.codec;
    // VP8's descriptor is a few bytes: read here, one copy a frame, instead of werift's bit-by-bit parse.
    const data = codec === 'VP8' ? joinVp8Payloads(packets.map((p) => p.payload)) : dePacketizeRtpPackets(DEPACKETIZER_NAME[codec], packets).data;
    if (!data || data.length === 0) return undefined;
    const timestamp = this.#unwrap(packets[0].header.timestamp);
    let info: { data?: Buffer; isKeyframe: boolean; width?: number; height?: number };
    if (codec === 'VP8') info = parseVp8Frame(data);
    else if (codec === 'VP9') info = parseVp9Frame(data);
    else info = this.#h264.process(data);
    if (info.width && info.height) this.#size = { width: info.width, height: info.height };
    return { codec, data: info.data ?? data, isKeyframe: info.isKeyframe, timestamp, ...this.#size };
  }

  // RTP timestamps wrap at 2^32; consumers get a number that only grows.
  #unwrap(ts: number): number {
    if (this.#lastTs !== undefined) {
      const delta = (ts - this.#lastTs) | 0;
      if (delta < 0 && ts > this.#lastTs) this.#tsBase -= 0x100000000;
      else if (delta > 0 && ts < this.#lastTs) this.#tsBase += 0x100000000;
    }
    this.#lastTs = ts;
    return this.#tsBase + ts;
  }
}
