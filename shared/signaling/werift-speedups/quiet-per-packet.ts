import { RTCRtpCodecParameters, RTCRtpReceiver } from 'werift';
import { applyOnce } from './apply-once';

const SETTLED = Promise.resolve();

/**
 * Two calls werift's receiver makes on every packet that allocate for nothing: runRtcp(), an async
 * function that returns at once while its report loop runs (a fresh promise each time), and the
 * codec's `name`, split out of its MIME type twice a packet. The first gets a settled promise when
 * the loop already runs; the second is looked up by MIME type. Returns false when werift's receiver
 * or codec parameters are not what this expects.
 */
export function useQuietPerPacketCalls(): boolean {
  return applyOnce('quietPerPacket', (patch) => {
    const receiver = RTCRtpReceiver.prototype as unknown as { runRtcp?: () => Promise<void> };
    const runRtcp = receiver.runRtcp;
    const nameGetter = Object.getOwnPropertyDescriptor(RTCRtpCodecParameters.prototype, 'name')?.get;
    const probe = new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000 });
    if (typeof runRtcp !== 'function' || !nameGetter || nameGetter.call(probe) !== 'VP8') return false;
    patch.value(receiver, 'runRtcp', function (this: { rtcpRunning?: boolean; stopped?: boolean }): Promise<void> {
      return this.rtcpRunning || this.stopped ? SETTLED : runRtcp.call(this);
    });
    const names = new Map<string, string | undefined>();
    patch.define(RTCRtpCodecParameters.prototype, 'name', {
      get(this: { mimeType: string }): string | undefined {
        const mime = this.mimeType;
        if (typeof mime !== 'string') return nameGetter.call(this) as string | undefined;
        let name = names.get(mime);
        if (name === undefined && !names.has(mime)) {
          name = nameGetter.call(this) as string | undefined;
          // A handful of codecs in practice; the bound only guards against a peer that invents many.
          if (names.size < 256) names.set(mime, name);
        }
        return name;
      },
      configurable: true,
    });
    return true;
  });
}
