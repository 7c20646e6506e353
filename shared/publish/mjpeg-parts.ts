import { codedError } from '../errors';

/** A part head longer than this is no camera's: it is refused rather than buffered. */
const MAX_HEAD_BYTES = 16 * 1024;

/** A part that passes the size cap: refused as soon as it is known, never held whole. */
export class PartTooLarge extends codedError<'part_too_large'>('PartTooLarge') {}

/**
 * Cuts a multipart/x-mixed-replace body into its parts, holding at most one part (within the cap)
 * and a head. A part's Content-Length, when given, ends it without waiting for the next boundary,
 * and one over the cap is refused at once; without it, the part is refused as soon as its bytes
 * pass the cap.
 */
export class MultipartCutter {
  readonly #delimiter: Buffer;
  readonly #maxPartBytes: number;
  #state: 'seek' | 'head' | 'body' = 'seek';
  /** Bytes not yet cut: the search for a boundary, or a head. */
  #pending: Buffer = Buffer.alloc(0);
  /** The part being received, its length so far and (when the head gave it) its announced length. */
  #part: Buffer = Buffer.alloc(0);
  #partBytes = 0;
  #announced?: number;
  /** Where the search for the closing boundary resumes in #part. */
  #scanFrom = 0;
  #boundaries = 0;
  #unmatched = 0;

  constructor(boundary: string, maxPartBytes: number) {
    this.#delimiter = Buffer.from(`--${boundary}`);
    this.#maxPartBytes = maxPartBytes;
  }

  /** Feeds bytes of the body; returns the parts they complete. Throws PartTooLarge when a part passes the cap. */
  push(chunk: Buffer): Buffer[] {
    const parts: Buffer[] = [];
    let data: Buffer | undefined = chunk;
    while (data && data.length > 0) data = this.#step(data, parts);
    return parts;
  }

  /** What the cutter is waiting for, in words (why no part came). */
  describe(): string {
    if (this.#state === 'body') {
      const of = this.#announced === undefined ? '' : ` of ${this.#announced} announced`;
      return `an unfinished part: ${this.#partBytes} bytes${of} and no end`;
    }
    if (this.#state === 'head') return 'a part head that never ended';
    if (this.#boundaries === 0) return this.#unmatched === 0 ? 'no bytes' : `no boundary "${this.#delimiter.toString('latin1').slice(0, 80)}" in ${this.#unmatched} bytes`;
    return `${this.#unmatched} bytes after the last part and no boundary`;
  }

  /** Consumes some of `data` in the current state; returns what is left for the next state. */
  #step(data: Buffer, parts: Buffer[]): Buffer | undefined {
    if (this.#state === 'body') return this.#body(data, parts);
    if (this.#state === 'seek') this.#unmatched += data.length;
    const buf = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
    this.#pending = Buffer.alloc(0);
    if (this.#state === 'seek') {
      const at = buf.indexOf(this.#delimiter);
      if (at < 0) {
        // Keep only what could be the start of a boundary cut in two.
        const keep = Math.min(buf.length, this.#delimiter.length - 1);
        this.#pending = Buffer.from(buf.subarray(buf.length - keep));
        return undefined;
      }
      this.#unmatched = 0;
      this.#boundaries++;
      this.#state = 'head';
      return buf.subarray(at + this.#delimiter.length);
    }
    const headEnd = buf.indexOf('\r\n\r\n');
    if (headEnd < 0) {
      if (buf.length > MAX_HEAD_BYTES) throw new PartTooLarge('part_too_large', `a part head over ${MAX_HEAD_BYTES} bytes`);
      this.#pending = Buffer.from(buf);
      return undefined;
    }
    const head = buf.subarray(0, headEnd).toString('latin1');
    const length = /content-length:\s*(\d+)/i.exec(head)?.[1];
    this.#announced = length === undefined ? undefined : Number(length);
    if (this.#announced !== undefined && this.#announced > this.#maxPartBytes) {
      throw new PartTooLarge('part_too_large', `a part of ${this.#announced} bytes (Content-Length), over ${this.#maxPartBytes}`);
    }
    this.#state = 'body';
    this.#part = Buffer.allocUnsafe(Math.min(this.#announced ?? 64 * 1024, this.#maxPartBytes));
    this.#partBytes = 0;
    this.#scanFrom = 0;
    return buf.subarray(headEnd + 4);
  }

  /** Adds bytes to the part; cuts it at its announced length or at the next boundary. */
  #body(data: Buffer, parts: Buffer[]): Buffer | undefined {
    if (this.#announced !== undefined) {
      const take = Math.min(data.length, this.#announced - this.#partBytes);
      this.#append(data.subarray(0, take));
      if (this.#partBytes < this.#announced) return undefined;
      this.#finish(this.#partBytes, parts);
      return data.subarray(take);
    }
    const before = this.#partBytes;
    this.#append(data, true);
    const at = this.#part.subarray(0, this.#partBytes).indexOf(this.#delimiter, this.#scanFrom);
    if (at < 0) {
      if (this.#partBytes > this.#maxPartBytes) throw new PartTooLarge('part_too_large', `a part over ${this.#maxPartBytes} bytes (no Content-Length)`);
      this.#scanFrom = Math.max(0, this.#partBytes - this.#delimiter.length + 1);
      return undefined;
    }
    let end = at;
    while (end > 0 && (this.#part[end - 1] === 0x0a || this.#part[end - 1] === 0x0d)) end--;
    // The boundary and what follows it are read again in the seek state (it may have begun in an earlier read).
    const rest = at >= before ? data.subarray(at - before) : Buffer.concat([this.#part.subarray(at, before), data]);
    this.#finish(end, parts);
    return rest;
  }

  /** Copies bytes into the part, growing it by doubling; past the cap only by what one read may add. */
  #append(bytes: Buffer, mayPassCap = false): void {
    const needed = this.#partBytes + bytes.length;
    if (needed > this.#maxPartBytes && !mayPassCap) throw new PartTooLarge('part_too_large', `a part over ${this.#maxPartBytes} bytes`);
    if (needed > this.#part.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, Math.min(this.#part.length * 2, this.#maxPartBytes)));
      this.#part.copy(grown, 0, 0, this.#partBytes);
      this.#part = grown;
    }
    bytes.copy(this.#part, this.#partBytes);
    this.#partBytes = needed;
  }

  #finish(end: number, parts: Buffer[]): void {
    parts.push(Buffer.from(this.#part.subarray(0, end)));
    this.#part = Buffer.alloc(0);
    this.#partBytes = 0;
    this.#announced = undefined;
    this.#state = 'seek';
  }
}
