/**
 * Measured changes to werift's receive path, one module each (the patch beside the check that
 * werift's insides are what it expects), applied at run time: install scripts, and so patch files,
 * are not available to a package installed into n8n or Node-RED.
 */
import { appliedSpeedups } from './apply-once';
import { useFastGetBit } from './fast-get-bit';
import { useFirstCodecMemo } from './first-codec-memo';
import { useLeanEvents } from './lean-events';
import { useNackLoopThatEnds } from './nack-loop-ends';
import { usePlainRtpObjects } from './plain-rtp-objects';
import { useQuietPerPacketCalls } from './quiet-per-packet';
import { useKeyObjectsForSrtp } from './srtp-key-objects';
import { weriftSpeedupsStatus } from './status';

export { TESTED_WERIFT_VERSIONS, WERIFT_SPEEDUPS_ENV, disableWeriftSpeedups, setWeriftSpeedups, weriftSpeedupsOn, weriftSpeedupsStatus, type WeriftSpeedupsStatus } from './status';
export { appliedSpeedups };
export { fastGetBit, useFastGetBit } from './fast-get-bit';
export { useFirstCodecMemo } from './first-codec-memo';
export { leanExecute, useLeanEvents } from './lean-events';
export { useNackLoopThatEnds } from './nack-loop-ends';
export { plainRtpDeserialize, usePlainRtpObjects } from './plain-rtp-objects';
export { useQuietPerPacketCalls } from './quiet-per-packet';
export { useKeyObjectsForSrtp } from './srtp-key-objects';

/** The speed-ups by name. */
export type SpeedupName = 'srtpKeyObjects' | 'fastGetBit' | 'plainRtpObjects' | 'leanEvents' | 'firstCodecMemo' | 'nackLoopEnds' | 'quietPerPacket';

/**
 * Applies the speed-ups, once per thread, to every werift connection in it; only for a werift
 * release they were tested with, and not when switched off. Six keep werift's behaviour and only
 * make it cheaper; one (nackLoopEnds) fixes a werift bug, so it changes behaviour: werift's NACK
 * loop stops once nothing is lost. Each is skipped when werift's insides are not where it expects them.
 */
export function speedUpWerift(): Record<SpeedupName, boolean> {
  if (!weriftSpeedupsStatus().enabled) {
    return { srtpKeyObjects: false, fastGetBit: false, plainRtpObjects: false, leanEvents: false, firstCodecMemo: false, nackLoopEnds: false, quietPerPacket: false };
  }
  return {
    srtpKeyObjects: useKeyObjectsForSrtp(),
    fastGetBit: useFastGetBit(),
    plainRtpObjects: usePlainRtpObjects(),
    leanEvents: useLeanEvents(),
    firstCodecMemo: useFirstCodecMemo(),
    nackLoopEnds: useNackLoopThatEnds(),
    quietPerPacket: useQuietPerPacketCalls(),
  };
}
