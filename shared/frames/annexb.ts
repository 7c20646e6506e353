/** H.264 NAL unit types this package looks at (ITU-T H.264 table 7-1). */
export const NAL = { slice: 1, idr: 5, sei: 6, sps: 7, pps: 8, aud: 9 } as const;

const START_CODE = Buffer.from([0, 0, 0, 1]);

/** Splits an Annex-B byte stream into NAL units (start codes removed, empty units skipped). */
export function splitAnnexB(data: Buffer): Buffer[] {
  const units: Buffer[] = [];
  let start = -1;
  let i = 0;
  while (i + 2 < data.length) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      if (start >= 0) units.push(trimTrailingZeros(data.subarray(start, i)));
      i += 3;
      start = i;
    } else {
      i++;
    }
  }
  if (start >= 0 && start < data.length) units.push(trimTrailingZeros(data.subarray(start)));
  return units.filter((u) => u.length > 0);
}

/** Joins NAL units into Annex-B with 4-byte start codes. */
export function joinAnnexB(units: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const u of units) parts.push(START_CODE, u);
  return Buffer.concat(parts);
}

/** The nal_unit_type of a NAL unit (start code removed). */
export function nalType(unit: Uint8Array): number {
  return unit[0] & 0x1f;
}

/** True for a coded slice (the units that carry picture data). */
export function isVcl(type: number): boolean {
  return type >= 1 && type <= 5;
}

// A 4-byte start code leaves a zero byte at the end of the previous unit.
function trimTrailingZeros(unit: Buffer): Buffer {
  let end = unit.length;
  while (end > 0 && unit[end - 1] === 0) end--;
  return unit.subarray(0, end);
}

/** Removes emulation-prevention bytes (00 00 03 -> 00 00) so the payload can be bit-parsed. */
export function unescapeRbsp(unit: Uint8Array): Buffer {
  const out = Buffer.alloc(unit.length);
  let n = 0;
  let zeros = 0;
  for (let i = 0; i < unit.length; i++) {
    const b = unit[i];
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    zeros = b === 0 ? zeros + 1 : 0;
    out[n++] = b;
  }
  return out.subarray(0, n);
}
