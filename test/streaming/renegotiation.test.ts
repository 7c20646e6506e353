import { MediaStreamTrack, RtpHeader, RtpPacket, type RTCPeerConnection } from 'werift';
import type { WebSocket } from 'ws';
import type { EncodedFrame } from '../../shared/frames';
import { vp8Payload } from '../sandbox-streaming/support/peers';
import { FakeSignaling } from './support/fake-signaling';
import { offerOnConnect, renegotiate } from './support/fake-offerer';
import { waitFor } from './support/harness';

let fake: FakeSignaling | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await fake?.stop();
  fake = undefined;
});

/** Sends tiny VP8 key frames on a track, each with a timestamp of its own. */
class KeyframeSender {
  readonly track = new MediaStreamTrack({ kind: 'video' });
  #seq = 1;
  #ts = 1000;
  #timer?: NodeJS.Timeout;

  /** Sends one frame every `gapMs` until stop(); returns the timestamps sent from now on. */
  start(gapMs = 20): number[] {
    const sent: number[] = [];
    this.#timer = setInterval(() => {
      this.#ts += 3000;
      sent.push(this.#ts);
      this.track.writeRtp(new RtpPacket(new RtpHeader({ payloadType: 96, sequenceNumber: this.#seq++, timestamp: this.#ts, marker: true }), vp8Payload(true)));
    }, gapMs);
    return sent;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

test('a track announced again after its m-line went inactive and back has one assembler: each frame arrives once', async () => {
  let server: { pc: RTCPeerConnection; ws: WebSocket } | undefined;
  fake = await FakeSignaling.start(offerOnConnect((pc, ws) => (server = { pc, ws })));
  const session = fake.viewer();
  closers.push(() => session.close());
  const frames: EncodedFrame[] = [];
  session.on('frame', (f) => frames.push(f));
  let added = 0;
  session.on('streamAdded', () => added++);
  await session.start();
  const { pc, ws } = server!;
  closers.push(() => pc.close());
  const sender = new KeyframeSender();
  closers.push(async () => sender.stop());
  await pc.getTransceivers()[0].sender.replaceTrack(sender.track);

  sender.start();
  await waitFor('frames before the renegotiation', () => frames.length >= 5, 10_000);
  sender.stop();
  await waitFor('the stream announced', () => added === 1, 10_000);

  await renegotiate(pc, ws, 'inactive');
  await renegotiate(pc, ws, 'sendonly');
  // werift announces the same track a second time; the session starts the stream over.
  await waitFor('the stream announced again', () => added >= 2, 10_000);

  const mark = frames.length;
  const sent = sender.start();
  await waitFor('frames after the renegotiation', () => frames.slice(mark).length >= 10, 10_000);
  sender.stop();
  const after = frames.slice(mark).map((f) => f.timestamp);
  expect(after.every((ts) => sent.includes(ts))).toBe(true);
  expect(after.length).toBe(new Set(after).size);
  expect(new Set(frames.map((f) => f.trackId)).size).toBe(1);
});
