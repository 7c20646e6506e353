import { NAL, isVcl, joinAnnexB, nalType, splitAnnexB } from './annexb';

/**
 * Cuts an H.264 Annex-B byte stream into access units (one picture each), for sources such as a
 * raw .h264 file or an encoder's stdout that carry no framing. A unit ends where the next picture's
 * first slice, or an AUD/SPS/PPS/SEI after a slice, begins (H.264 7.4.1.2.3).
 */
export class AccessUnitSplitter {
  #pending: Buffer = Buffer.alloc(0);
  #au: Buffer[] = [];
  #auHasSlice = false;

  /** Appends bytes; returns the access units completed by them. */
  push(chunk: Buffer): Buffer[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    // The last NAL unit may still be growing: only units followed by a start code are final.
    const lastStart = lastStartCode(this.#pending);
    if (lastStart <= 0) return [];
    const complete = this.#pending.subarray(0, lastStart);
    this.#pending = this.#pending.subarray(lastStart);
    return this.#addUnits(splitAnnexB(complete));
  }

  /** Returns the last access unit once the stream has ended. */
  flush(): Buffer[] {
    const out = this.#addUnits(splitAnnexB(this.#pending));
    this.#pending = Buffer.alloc(0);
    if (this.#au.length > 0 && this.#auHasSlice) out.push(joinAnnexB(this.#au));
    this.#au = [];
    this.#auHasSlice = false;
    return out;
  }

  #addUnits(units: Buffer[]): Buffer[] {
    const out: Buffer[] = [];
    for (const u of units) {
      const t = nalType(u);
      const startsPicture = isVcl(t) && firstMbIsZero(u);
      const startsPrefix = t === NAL.aud || t === NAL.sps || t === NAL.pps || t === NAL.sei;
      if (this.#auHasSlice && (startsPicture || startsPrefix)) {
        out.push(joinAnnexB(this.#au));
        this.#au = [];
        this.#auHasSlice = false;
      }
      this.#au.push(Buffer.from(u));
      if (isVcl(t)) this.#auHasSlice = true;
    }
    return out;
  }
}

// first_mb_in_slice is ue(v); its value is 0 exactly when the first bit after the header is 1.
function firstMbIsZero(unit: Buffer): boolean {
  return unit.length > 1 && (unit[1] & 0x80) !== 0;
}

function lastStartCode(b: Buffer): number {
  for (let i = b.length - 3; i >= 0; i--) {
    if (b[i] === 0 && b[i + 1] === 0 && b[i + 2] === 1) return i > 0 && b[i - 1] === 0 ? i - 1 : i;
  }
  return -1;
}
