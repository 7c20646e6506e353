import { RTCRtpReceiver } from 'werift';
import { applyOnce } from './apply-once';

interface Codec {
  payloadType: number;
  rtcpFeedback: { type: string }[];
}
interface Receiver {
  codecs: Record<number, Codec>;
  codecArray: Codec[];
}

/**
 * For every packet werift's receiver asks whether NACK and transport-cc are on, each time listing
 * and sorting all its negotiated codecs to look at the first: the largest single allocation on the
 * receive path. The first codec is kept until werift changes the receiver's codecs (only its
 * prepareReceive and resyncCodecs do). Returns false when the receiver is not what this expects.
 */
export function useFirstCodecMemo(): boolean {
  return applyOnce('firstCodecMemo', (patch) => {
    const proto = RTCRtpReceiver.prototype as unknown as Record<string, unknown>;
    const getter = (name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
    const writers = ['prepareReceive', 'resyncCodecs'] as const;
    if (!getter('codecArray') || !getter('nackEnabled') || !getter('twccEnabled') || writers.some((w) => typeof proto[w] !== 'function')) return false;
    // werift changes a receiver's codecs in place, and only through these two methods: the memo is
    // dropped after each of them (an identity check of the codec list could never notice a change).
    const memo = new WeakMap<object, { first: Codec | undefined }>();
    const firstCodec = (receiver: Receiver): Codec | undefined => {
      let known = memo.get(receiver);
      if (!known) {
        known = { first: receiver.codecArray[0] };
        memo.set(receiver, known);
      }
      return known.first;
    };
    for (const name of writers) {
      const original = proto[name] as (...args: unknown[]) => unknown;
      patch.value(proto, name, function (this: Receiver, ...args: unknown[]): unknown {
        try {
          return original.apply(this, args);
        } finally {
          memo.delete(this);
        }
      });
    }
    // werift's own tests, on the memoised codec.
    const feedback = (type: string) =>
      function (this: Receiver) {
        return firstCodec(this)?.rtcpFeedback.find((f) => f.type === type);
      };
    patch.define(proto, 'nackEnabled', { get: feedback('nack'), configurable: true });
    patch.define(proto, 'twccEnabled', { get: feedback('transport-cc'), configurable: true });
    return true;
  });
}
