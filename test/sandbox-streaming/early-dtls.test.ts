import { Event, type RTCDtlsTransport } from 'werift';
import { holdEarlyDtls } from '../../sandbox/streaming/early-dtls';

// A browser's DTLS packets that reach the sandbox before werift has started its DTLS side. The
// transport here behaves as werift's does around its start: 'connecting' is announced, and its DTLS
// server subscribes to the ICE connection's data in the same turn. (Chromium's first packets come that
// early on most joins, not on all: a race that a loaded machine can turn, so it is tested here.)

type State = 'new' | 'connecting' | 'connected' | 'closed' | 'failed';

function fakeTransport(): { transport: RTCDtlsTransport; received: Buffer[]; start(): void; close(): void; data: Event<[Buffer]> } {
  const data = new Event<[Buffer]>();
  const onStateChange = new Event<[State]>();
  const received: Buffer[] = [];
  const t = { state: 'new' as State, onStateChange, iceTransport: { connection: { onData: data } } };
  const setState = (state: State): void => {
    t.state = state;
    onStateChange.execute(state);
  };
  return {
    transport: t as unknown as RTCDtlsTransport,
    received,
    data,
    start() {
      setState('connecting');
      data.subscribe((buf) => {
        if (buf[0] >= 20 && buf[0] <= 63) received.push(buf);
      });
    },
    close: () => setState('closed'),
  };
}

const dtls = (n: number): Buffer => Buffer.from([22, 254, 253, n]);
const stun = Buffer.from([0, 1, 0, 0]);
const rtp = Buffer.from([0x80, 96, 0, 1]);
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('DTLS packets that came before the start are handed over once it has started, in order, and later ones go straight through', async () => {
  const f = fakeTransport();
  const handed = holdEarlyDtls(f.transport);
  f.data.execute(dtls(1));
  f.data.execute(stun);
  f.data.execute(rtp);
  f.data.execute(dtls(2));
  f.start();
  expect(f.received).toEqual([]);
  await turn();
  expect(f.received).toEqual([dtls(1), dtls(2)]);
  expect(handed()).toBe(2);
  f.data.execute(dtls(3));
  expect(f.received).toEqual([dtls(1), dtls(2), dtls(3)]);
  expect(handed()).toBe(2);
});

test('at most 8 are kept; none are handed over when the transport closes before it starts', async () => {
  const many = fakeTransport();
  const handedMany = holdEarlyDtls(many.transport);
  for (let i = 0; i < 20; i++) many.data.execute(dtls(i));
  many.start();
  await turn();
  expect(many.received.map((b) => b[3])).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(handedMany()).toBe(8);

  const closed = fakeTransport();
  const handedClosed = holdEarlyDtls(closed.transport);
  closed.data.execute(dtls(1));
  closed.close();
  closed.start();
  await turn();
  expect(closed.received).toEqual([]);
  expect(handedClosed()).toBe(0);
});

test('nothing is handed over when the transport started without early packets', async () => {
  const f = fakeTransport();
  const handed = holdEarlyDtls(f.transport);
  f.start();
  f.data.execute(dtls(1));
  await turn();
  expect(f.received).toEqual([dtls(1)]);
  expect(handed()).toBe(0);
});
