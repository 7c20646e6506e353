import type { RTCPeerConnection } from 'werift';
import { SignalingSession } from '../../shared/signaling';
import { FakeSignaling } from './support/fake-signaling';
import { offerOnConnect } from './support/fake-offerer';

// Slow by nature: werift reports a vanished peer only when ICE consent expires (30 s).
test('media that the server closes while the socket stays open ends the attempt after the grace period (ICE-FAILED)', async () => {
  const peers: RTCPeerConnection[] = [];
  const fake = await FakeSignaling.start(offerOnConnect((pc) => peers.push(pc)));
  const url = fake.url;
  const session = new SignalingSession({
    role: 'downstream',
    getTicket: async () => ({ id: 'fake-room', direction: 'down', url, access_token: 't' }),
    loopbackOnly: true,
    rejoin: false,
    timeouts: { iceGraceMs: 300 },
  });
  try {
    await session.start();
    const closed = new Promise<unknown>((r) => session.once('closed', ({ error }) => r(error)));
    // The server's peer vanishes without a word on the signaling socket.
    await peers[0].close();
    const err = await closed;
    expect(err).toMatchObject({ reason: 'ICE-FAILED', rejoin: 'backoff' });
  } finally {
    await session.close();
    for (const pc of peers) await pc.close();
    await fake.stop();
  }
});
