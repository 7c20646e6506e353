import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { Viewer, startPublisher } from './support/peers';
import type { Publisher } from '../../shared/publish';

let h: StreamingHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const DROPS = 20;
const RECOVERY_BOUND_MS = 5000;

function activeResources(): number {
  // Timers come and go with the media itself; sockets, handles and child processes are what leak.
  return process.getActiveResourcesInfo().filter((r) => r !== 'Timeout' && r !== 'Immediate').length;
}

/** Frames the viewer got after `mark`, once it also saw a key frame there. */
function recovered(viewer: Viewer, mark: number, min: number): boolean {
  const fresh = viewer.frames.slice(mark);
  return fresh.length >= min && fresh.some((f) => f.isKeyframe);
}

test(`after ${DROPS} socket drops and an SFU restart, the viewer receives again each time`, async () => {
  const room = await h.client.createRoom();
  let pub: Publisher | undefined;
  let viewer: Viewer | undefined;
  try {
    // Warm up once so lazily created pools and sockets do not count as growth.
    pub = await startPublisher(h.client, room.id, { gop: 10 });
    viewer = new Viewer(h.client, room.id, 'VP8');
    await viewer.start();
    await waitFor('first frames', () => recovered(viewer!, 0, 10), RECOVERY_BOUND_MS);
    const baseline = activeResources();
    const joinsSeen: number[] = [];
    // Frames counted from the latest join: the dropped peer connection may still deliver a few
    // frames (a key frame among them) before the viewer has joined again, which is no recovery, and
    // the next drop would then find the room between joins.
    let joinedAt = 0;
    viewer.session.on('connected', (i) => {
      joinsSeen.push(i.joins);
      joinedAt = viewer!.frames.length;
    });
    for (let i = 0; i < DROPS + 1; i++) {
      const joins = joinsSeen.length;
      const action = i < DROPS ? 'drop-sockets' : 'restart-sfu';
      const result = (await h.admin(action, { room: room.id })) as Record<string, number>;
      expect(result.dropped ?? result.closed).toBeGreaterThanOrEqual(1);
      await waitFor(`frames after ${action} #${i + 1}`, () => joinsSeen.length > joins && recovered(viewer!, joinedAt, 5), RECOVERY_BOUND_MS);
    }
    // Every drop made the viewer join again (the publisher too, or frames would not flow).
    expect(joinsSeen.length).toBeGreaterThanOrEqual(DROPS + 1);
    // Sockets of the dropped joins close a little after the new join: wait for it, with a deadline.
    await waitFor('resources back near the baseline', () => activeResources() <= baseline + 4, RECOVERY_BOUND_MS).catch(() => undefined);
    const after = activeResources();
    if (process.env.STREAMING_TEST_VERBOSE) console.log({ baseline, after, joins: joinsSeen.length });
    expect(after).toBeLessThanOrEqual(baseline + 4);
  } finally {
    await viewer?.close();
    await pub?.close();
  }
});
