import type { RTCPeerConnection } from 'werift';
import { SilenceWatch } from '../../shared/signaling/liveness';
import { waitFor } from './support/harness';
import { FakeSignaling } from './support/fake-signaling';
import { offerOnConnect } from './support/fake-offerer';

// werift reports a vanished peer only when ICE consent expires (30 s); the session's own silence
// watch notices sooner. 8 s is above werift's consent-check interval (4 to 6 s), so a live but idle
// peer is never taken for a vanished one.
test('media that the server closes while the socket stays open ends the attempt after silence and the grace period (ICE-FAILED)', async () => {
  const peers: RTCPeerConnection[] = [];
  const fake = await FakeSignaling.start(offerOnConnect((pc) => peers.push(pc)));
  const session = fake.viewer({ timeouts: { iceGraceMs: 300, iceSilenceMs: 8000 } });
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

test('the silence watch reports silence when the counter stops, and life when it moves again', async () => {
  let counter = 0;
  const changes: boolean[] = [];
  const watch = new SilenceWatch(() => counter, 300, (silent) => changes.push(silent));
  watch.start();
  try {
    await waitFor('silence', () => changes.length === 1, 10_000);
    expect(changes).toEqual([true]);
    counter++;
    await waitFor('life', () => changes.length === 2, 10_000);
    expect(changes).toEqual([true, false]);
  } finally {
    watch.stop();
  }
});
