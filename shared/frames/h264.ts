import { NAL, isVcl, joinAnnexB, nalType, splitAnnexB } from './annexb';
import { parseSps } from './h264-sps';

/** An H.264 access unit made ready for a decoder. */
export interface H264AccessUnit {
  data: Buffer;
  isKeyframe: boolean;
  width?: number;
  height?: number;
}

/**
 * Tracks SPS/PPS across access units. An IDR is only a usable key frame when the decoder also has
 * the parameter sets, so they are cached and prepended to an IDR that arrives without them.
 */
export class H264ParameterCache {
  #sps?: Buffer;
  #pps?: Buffer;
  #size?: { width: number; height: number };

  /** Inspects one Annex-B access unit and returns it with a trustworthy key-frame flag. */
  process(accessUnit: Buffer): H264AccessUnit {
    const units = splitAnnexB(accessUnit);
    let hasSps = false;
    let hasPps = false;
    let firstSlice: Buffer | undefined;
    for (const u of units) {
      const t = nalType(u);
      if (t === NAL.sps) {
        hasSps = true;
        this.#sps = Buffer.from(u);
        this.#size = parseSps(u) ?? this.#size;
      } else if (t === NAL.pps) {
        hasPps = true;
        this.#pps = Buffer.from(u);
      }
      if (!firstSlice && isVcl(t)) firstSlice = u;
    }
    // A key frame must begin with the IDR's first slice (first_mb_in_slice 0): anything else lost its start.
    const startsWithIdr = firstSlice !== undefined && nalType(firstSlice) === NAL.idr && firstSlice.length > 1 && (firstSlice[1] & 0x80) !== 0;
    if (!startsWithIdr || !this.#sps || !this.#pps) {
      return { data: accessUnit, isKeyframe: false, ...this.#size };
    }
    if (hasSps && hasPps) return { data: accessUnit, isKeyframe: true, ...this.#size };
    // Parameter sets go first, after an access unit delimiter if there is one.
    const rest = units.filter((u) => nalType(u) !== NAL.sps && nalType(u) !== NAL.pps);
    const lead = rest.length > 0 && nalType(rest[0]) === NAL.aud ? [rest.shift() as Buffer] : [];
    const data = joinAnnexB([...lead, this.#sps, this.#pps, ...rest]);
    return { data, isKeyframe: true, ...this.#size };
  }

  /** Forgets the cached parameter sets (a new stream may use different ones). */
  reset(): void {
    this.#sps = undefined;
    this.#pps = undefined;
    this.#size = undefined;
  }
}

