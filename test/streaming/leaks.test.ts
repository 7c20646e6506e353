import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SignalingSession } from '../../shared/signaling';
import { ABORTED, abortable, sleep } from '../../shared/signaling/backoff';
import type { Ticket } from '../../shared/streaming';
import { FakeSignaling } from './support/fake-signaling';

// A full collection on demand, without starting node with --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ATTEMPTS = 30;

let fake: FakeSignaling | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

/** Collects garbage until `done` holds or a few rounds have passed (WeakRefs clear after the current job). */
async function collect(done: () => boolean): Promise<void> {
  for (let i = 0; i < 10 && !done(); i++) {
    await new Promise((r) => setTimeout(r, 10));
    gc();
  }
}

test(`${ATTEMPTS} failed joins: the tickets of finished attempts are not kept for the life of the session`, async () => {
  // Every join is refused the way a server under load refuses it: the session backs off and rejoins.
  fake = await FakeSignaling.start((ws) => ws.close(4500, 'INTERNAL-ERROR'));
  const url = fake.url;
  const tickets: WeakRef<Ticket>[] = [];
  const session = new SignalingSession({
    role: 'downstream',
    getTicket: async () => {
      const ticket: Ticket = { id: 'fake-room', direction: 'down', url, access_token: 't' };
      tickets.push(new WeakRef(ticket));
      return ticket;
    },
    rejoin: { baseDelayMs: 1, maxDelayMs: 2 },
    loopbackOnly: true,
  });
  session.on('error', () => undefined);
  let rejoins = 0;
  const enough = new Promise<void>((resolve) =>
    session.on('rejoining', () => {
      if (++rejoins === ATTEMPTS) resolve();
    }),
  );
  try {
    void session.start();
    await enough;
    const alive = (): number => tickets.filter((ref) => ref.deref() !== undefined).length;
    // At most the attempt under way (and the one just ended) may still hold its ticket.
    await collect(() => alive() <= 2);
    expect(tickets.length).toBeGreaterThanOrEqual(ATTEMPTS);
    expect(alive()).toBeLessThanOrEqual(2);
  } finally {
    await session.close();
  }
});

test('waits on a long-lived stop signal let go of it when they end', async () => {
  const stop = new AbortController();
  for (let i = 0; i < 50; i++) {
    await abortable(Promise.resolve(i), stop.signal);
    await abortable(Promise.reject(new Error('no ticket')), stop.signal).catch(() => undefined);
    await sleep(1, stop.signal);
  }
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  const pending = abortable(new Promise<never>(() => undefined), stop.signal);
  const napping = sleep(60_000, stop.signal);
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(2);
  stop.abort();
  await expect(pending).resolves.toBe(ABORTED);
  await napping;
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});
