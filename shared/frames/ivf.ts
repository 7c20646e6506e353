import type { VideoCodec } from './types';

/** Stream-level fields of an IVF file. */
export interface IvfHeader {
  /** VP8 and VP9 are IVF's own; H264 travels in IVF too where only the timestamps matter (ffmpeg reads it). */
  codec: VideoCodec;
  width: number;
  height: number;
  /** Time base of frame timestamps: timestamp * timebaseNum / timebaseDen seconds. */
  timebaseDen: number;
  timebaseNum: number;
}

/** One frame read from an IVF stream. */
export interface IvfFrame {
  data: Buffer;
  /** Presentation time in IVF time-base units. */
  pts: number;
}

/** The FOURCC of each codec in an IVF header (ffmpeg's demuxer maps each to a decoder). */
const FOURCC: Record<VideoCodec, string> = { VP8: 'VP80', VP9: 'VP90', H264: 'H264' };
const HEADER_SIZE = 32;
const FRAME_HEADER_SIZE = 12;

/** Builds the 32-byte IVF file header. */
export function ivfFileHeader(h: IvfHeader, frameCount = 0): Buffer {
  const b = Buffer.alloc(HEADER_SIZE);
  b.write('DKIF', 0, 'ascii');
  b.writeUInt16LE(0, 4);
  b.writeUInt16LE(HEADER_SIZE, 6);
  b.write(FOURCC[h.codec], 8, 'ascii');
  b.writeUInt16LE(h.width & 0xffff, 12);
  b.writeUInt16LE(h.height & 0xffff, 14);
  b.writeUInt32LE(h.timebaseDen, 16);
  b.writeUInt32LE(h.timebaseNum, 20);
  b.writeUInt32LE(frameCount, 24);
  return b;
}

/** Builds one IVF frame record (12-byte header + data). */
export function ivfFrame(data: Buffer, pts: number): Buffer {
  return Buffer.concat([ivfFrameHeader(data.length, pts), data]);
}

/** The 12-byte header of an IVF frame record, for writers that send the frame's bytes as they are. */
export function ivfFrameHeader(size: number, pts: number): Buffer {
  // Every byte is written: a slice of Node's shared pool will do.
  const h = Buffer.allocUnsafe(FRAME_HEADER_SIZE);
  const t = Math.max(0, Math.round(pts));
  h.writeUInt32LE(size, 0);
  h.writeUInt32LE(t % 2 ** 32, 4);
  h.writeUInt32LE(Math.floor(t / 2 ** 32), 8);
  return h;
}

/**
 * Incremental IVF parser: feed it chunks as they arrive (a file or an encoder's stdout) and it
 * hands back the header once and whole frames as soon as they are complete.
 */
export class IvfReader {
  #buf: Buffer = Buffer.alloc(0);
  header?: IvfHeader;

  /** Appends bytes; returns the frames completed by them. Throws on a stream that is not IVF. */
  push(chunk: Buffer): IvfFrame[] {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const frames: IvfFrame[] = [];
    if (!this.header) {
      if (this.#buf.length < HEADER_SIZE) return frames;
      this.header = parseIvfHeader(this.#buf);
      this.#buf = this.#buf.subarray(this.#buf.readUInt16LE(6));
    }
    while (this.#buf.length >= FRAME_HEADER_SIZE) {
      const size = this.#buf.readUInt32LE(0);
      if (this.#buf.length < FRAME_HEADER_SIZE + size) break;
      const pts = Number(this.#buf.readBigUInt64LE(4));
      frames.push({ data: Buffer.from(this.#buf.subarray(FRAME_HEADER_SIZE, FRAME_HEADER_SIZE + size)), pts });
      this.#buf = this.#buf.subarray(FRAME_HEADER_SIZE + size);
    }
    return frames;
  }
}

function parseIvfHeader(b: Buffer): IvfHeader {
  if (b.toString('ascii', 0, 4) !== 'DKIF') throw new Error('not an IVF stream (missing DKIF signature)');
  const fourcc = b.toString('ascii', 8, 12);
  const codec: VideoCodec | undefined = fourcc === 'VP80' ? 'VP8' : fourcc === 'VP90' ? 'VP9' : undefined;
  if (!codec) throw new Error(`unsupported IVF codec ${JSON.stringify(fourcc)} (VP80 or VP90 expected)`);
  return {
    codec,
    width: b.readUInt16LE(12),
    height: b.readUInt16LE(14),
    timebaseDen: b.readUInt32LE(16) || 90000,
    timebaseNum: b.readUInt32LE(20) || 1,
  };
}
