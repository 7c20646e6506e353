import { NAL, joinAnnexB, nalType, splitAnnexB } from '../frames/annexb';

/**
 * Readies a relayed H.264 camera's access units for viewers: nothing before the first key frame
 * (a decoder cannot start there), and the latest SPS/PPS in front of every key frame that comes
 * without them, so a viewer joining at any key frame can decode. The pictures are not touched.
 */
export class ParameterSetKeeper {
  #sps?: Buffer;
  #pps?: Buffer;
  #started = false;
  /** Access units dropped while waiting for the first key frame. */
  skipped = 0;

  /** Returns the unit to send (possibly with parameter sets added), or undefined to drop it. */
  take(au: Buffer): Buffer | undefined {
    const units = splitAnnexB(au);
    let idr = false;
    let hasSps = false;
    let hasPps = false;
    for (const u of units) {
      const t = nalType(u);
      if (t === NAL.sps) {
        this.#sps = Buffer.from(u);
        hasSps = true;
      } else if (t === NAL.pps) {
        this.#pps = Buffer.from(u);
        hasPps = true;
      } else if (t === NAL.idr) idr = true;
    }
    if (idr && this.#sps && this.#pps) this.#started = true;
    if (!this.#started) {
      this.skipped++;
      return undefined;
    }
    if (!idr || (hasSps && hasPps)) return au;
    const head = units.filter((u) => nalType(u) === NAL.aud);
    const rest = units.filter((u) => nalType(u) !== NAL.aud && nalType(u) !== NAL.sps && nalType(u) !== NAL.pps);
    return joinAnnexB([...head, this.#sps!, this.#pps!, ...rest]);
  }

  /** Starts over: the next unit sent is a key frame again (a new connection to the camera). */
  reset(): void {
    this.#started = false;
  }
}
