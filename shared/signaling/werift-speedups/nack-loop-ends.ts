import { RTCRtpReceiver } from 'werift';
import { applyOnce } from './apply-once';

/** What this module uses of werift's NACK sender. */
interface NackSender {
  sendNack: () => Promise<unknown>;
  lostSeqNumbers: number[];
  mediaSourceSsrc?: number;
  nackLoop?: unknown;
  [ENDS]?: true;
}
const ENDS = Symbol('nackLoopEnds');

/**
 * werift's NACK sender starts a 5 ms loop at a lost packet, meant to stop at the first round that
 * finds nothing lost once it has sent. But a round that finds nothing lost before sending waits on
 * a promise that never settles: when retransmissions recover the losses between two rounds, which is
 * the usual case, the loop runs for the rest of the connection, 200 rounds a second per stream. Such
 * a round now settles at once, so the loop stops as werift means it to, and starts again at the next
 * loss. Returns false when the sender is not what this expects.
 */
export function useNackLoopThatEnds(): boolean {
  return applyOnce('nackLoopEnds', (patch) => {
    const probe = (new RTCRtpReceiver({} as never, 'video', 1) as unknown as { nack?: NackSender }).nack;
    if (!probe || typeof probe.sendNack !== 'function' || !Array.isArray(probe.lostSeqNumbers)) return false;
    const proto = Object.getPrototypeOf(probe) as { setLost?: (...args: unknown[]) => unknown };
    const setLost = proto.setLost;
    if (typeof setLost !== 'function') return false;
    patch.value(proto, 'setLost', function (this: NackSender, ...args: unknown[]): unknown {
      if (!this[ENDS]) {
        this[ENDS] = true;
        const send = this.sendNack;
        // The sender's own test for having something to send, as it is.
        this.sendNack = () => (this.lostSeqNumbers.length > 0 && this.mediaSourceSsrc ? send() : Promise.resolve());
      }
      return setLost.apply(this, args);
    });
    return true;
  });
}
