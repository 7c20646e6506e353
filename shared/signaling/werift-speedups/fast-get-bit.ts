import { applyOnce, weriftCommonModule } from './apply-once';

/**
 * werift reads the bit fields of every RTP header (three times a packet on the way in) and RTCP
 * packet with a getBit that goes through strings and arrays: about a fifth of everything the receive
 * path allocates. Replaced by shifts for what it is ever given (a byte, 0-255); anything else still
 * goes to werift's own. Returns false when werift's helper is not where this expects it.
 */
export function useFastGetBit(): boolean {
  return applyOnce('fastGetBit', (patch) => {
    // The helper is not exported on its own; its module is.
    const binary = weriftCommonModule('binary') as { getBit?: GetBit } | undefined;
    const original = binary?.getBit;
    if (typeof original !== 'function' || original(0b0110_0000, 1, 2) !== 3) return false;
    patch.value(binary!, 'getBit', fastGetBit(original));
    return true;
  });
}

type GetBit = (bits: number, startIndex: number, length?: number) => number;

/** getBit with shifts: bits counted from the most significant of a byte. */
export function fastGetBit(original: GetBit): GetBit {
  return (bits: number, startIndex: number, length = 1): number => {
    if (bits >= 0 && bits <= 255 && (bits | 0) === bits && startIndex >= 0 && length >= 1 && startIndex + length <= 8 && (startIndex | 0) === startIndex && (length | 0) === length) {
      return (bits >> (8 - startIndex - length)) & ((1 << length) - 1);
    }
    return original(bits, startIndex, length);
  };
}
