/**
 * A few picture buffers kept for reuse. At 2 pictures a second a 640x480 stream would otherwise
 * allocate about 2 MB a second outside the JS heap, and V8 counts such memory towards its next full
 * collection: reused buffers keep those collections rare.
 */
export class PicturePool {
  readonly #free: Uint8Array[] = [];
  /** Buffers this pool handed out: only those come back in. */
  readonly #issued = new WeakSet<Uint8Array>();
  readonly #max: number;

  constructor(max = 3) {
    this.#max = max;
  }

  /** A buffer of exactly `size` bytes: a returned one when there is one, else a new one. Its contents are stale. */
  take(size: number): Uint8Array {
    const i = this.#free.findIndex((b) => b.byteLength === size);
    if (i >= 0) return this.#free.splice(i, 1)[0];
    const buffer = new Uint8Array(size);
    this.#issued.add(buffer);
    return buffer;
  }

  /** Takes a buffer back; its owner must not touch it afterwards. One given twice, or not from here, is ignored. */
  give(buffer: Uint8Array): void {
    if (!this.#issued.has(buffer) || this.#free.includes(buffer)) return;
    this.#free.push(buffer);
    // The oldest go first: after a change of picture size they are the wrong size.
    if (this.#free.length > this.#max) this.#free.shift();
  }
}
