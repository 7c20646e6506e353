import { BitReader } from './bit-reader';
import { unescapeRbsp } from './annexb';

/** Picture size decoded from a sequence parameter set. */
export interface SpsInfo {
  width: number;
  height: number;
}

// Profiles whose SPS carries chroma format and scaling lists (H.264 7.3.2.1.1).
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** Decodes the picture size from an SPS NAL unit (start code removed); undefined if malformed. */
export function parseSps(unit: Uint8Array): SpsInfo | undefined {
  try {
    const r = new BitReader(unescapeRbsp(unit.subarray(1)));
    const profileIdc = r.bits(8);
    r.bits(16); // constraint flags, level_idc
    r.ue(); // seq_parameter_set_id
    let chromaFormatIdc = 1;
    let separateColourPlane = false;
    if (HIGH_PROFILES.has(profileIdc)) {
      chromaFormatIdc = r.ue();
      if (chromaFormatIdc === 3) separateColourPlane = r.flag();
      r.ue();
      r.ue(); // bit depths
      r.bits(1); // qpprime_y_zero_transform_bypass_flag
      if (r.flag()) skipScalingLists(r, chromaFormatIdc === 3 ? 12 : 8);
    }
    r.ue(); // log2_max_frame_num_minus4
    const pocType = r.ue();
    if (pocType === 0) {
      r.ue();
    } else if (pocType === 1) {
      r.bits(1);
      r.se();
      r.se();
      const cycle = r.ue();
      for (let i = 0; i < cycle; i++) r.se();
    }
    r.ue(); // max_num_ref_frames
    r.bits(1);
    const widthMbs = r.ue() + 1;
    const heightMapUnits = r.ue() + 1;
    const frameMbsOnly = r.flag();
    if (!frameMbsOnly) r.bits(1);
    r.bits(1); // direct_8x8_inference_flag
    let crop = { left: 0, right: 0, top: 0, bottom: 0 };
    if (r.flag()) crop = { left: r.ue(), right: r.ue(), top: r.ue(), bottom: r.ue() };
    const arrayType = separateColourPlane ? 0 : chromaFormatIdc;
    const cropUnitX = arrayType === 0 ? 1 : arrayType === 3 ? 1 : 2;
    const cropUnitY = (arrayType === 1 ? 2 : 1) * (frameMbsOnly ? 1 : 2);
    const width = widthMbs * 16 - cropUnitX * (crop.left + crop.right);
    const height = (frameMbsOnly ? 1 : 2) * heightMapUnits * 16 - cropUnitY * (crop.top + crop.bottom);
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

function skipScalingLists(r: BitReader, count: number): void {
  for (let i = 0; i < count; i++) {
    if (!r.flag()) continue;
    const size = i < 6 ? 16 : 64;
    let last = 8;
    let next = 8;
    for (let j = 0; j < size; j++) {
      if (next !== 0) next = (last + r.se() + 256) % 256;
      last = next === 0 ? last : next;
    }
  }
}
