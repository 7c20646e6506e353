/** Reads big-endian bit fields and Exp-Golomb codes from a byte buffer. */
export class BitReader {
  #bit = 0;
  readonly #data: Uint8Array;

  constructor(data: Uint8Array) {
    this.#data = data;
  }

  /** Reads `n` bits (n <= 32) as an unsigned number; throws past the end. */
  bits(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.#bit >> 3;
      if (byte >= this.#data.length) throw new RangeError('bitstream truncated');
      v = v * 2 + ((this.#data[byte] >> (7 - (this.#bit & 7))) & 1);
      this.#bit++;
    }
    return v;
  }

  /** Reads one bit as a boolean. */
  flag(): boolean {
    return this.bits(1) === 1;
  }

  /** Reads an unsigned Exp-Golomb code (H.264 ue(v)). */
  ue(): number {
    let zeros = 0;
    while (this.bits(1) === 0) {
      if (++zeros > 31) throw new RangeError('Exp-Golomb code too long');
    }
    return zeros === 0 ? 0 : 2 ** zeros - 1 + this.bits(zeros);
  }

  /** Reads a signed Exp-Golomb code (H.264 se(v)). */
  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -(k / 2);
  }
}
