import { SignalingSession, type SessionOptions } from '../../../shared/signaling';
import { Publisher, openVideoSource, type OpenSourceOptions, type VideoSource } from '../../../shared/publish';
import type { EncodedFrame, VideoCodec } from '../../../shared/frames';
import type { StreamingClient } from '../../../shared/streaming';

/** Fast rejoin for tests: small delays so a test's bounds are about recovery, not waiting. */
export const FAST_REJOIN = { baseDelayMs: 50, maxDelayMs: 400 };

/** Starts a publisher of a synthetic pattern (or the given source) into a room. */
export async function startPublisher(
  client: StreamingClient,
  roomId: string,
  source: Partial<OpenSourceOptions> = {},
  extra: Partial<ConstructorParameters<typeof Publisher>[0]> = {},
): Promise<Publisher> {
  const src = await openVideoSource({ testPattern: true, codec: 'VP8', width: 320, height: 240, fps: 30, gop: 15, ...source });
  const pub = closingItsSource(new Publisher({ source: src, getTicket: client.ticketSource(roomId, 'up'), loopbackOnly: true, rejoin: FAST_REJOIN, ...extra }), src);
  pub.on('error', () => undefined);
  await pub.start();
  return pub;
}

/**
 * A publisher of a source the test support opened: the support is the source's opener, so the
 * publisher's close() closes the source after it, and a publisher that ends by itself lets it go too.
 */
export function closingItsSource(publisher: Publisher, source: VideoSource): Publisher {
  const close = publisher.close.bind(publisher);
  publisher.close = async () => {
    await close();
    await source.close();
  };
  publisher.on('closed', () => void source.close().catch(() => undefined));
  return publisher;
}

/** A viewer that records every frame it receives. */
export class Viewer {
  readonly frames: EncodedFrame[] = [];
  readonly session: SignalingSession;

  constructor(client: StreamingClient, roomId: string, codec: VideoCodec, extra: Partial<SessionOptions> = {}) {
    this.session = new SignalingSession({
      role: 'downstream',
      video: { codec_type: codec },
      getTicket: client.ticketSource(roomId, 'down'),
      loopbackOnly: true,
      rejoin: FAST_REJOIN,
      ...extra,
    });
    this.session.on('frame', (f) => this.frames.push(f));
    this.session.on('error', () => undefined);
  }

  start(): Promise<unknown> {
    return this.session.start();
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
