import dgram from 'node:dgram';
import dns from 'node:dns';
import { RTCPeerConnection, useVP8 } from 'werift';
import { createPeer } from '../../shared/signaling/peer';
import { gathered, loopbackPeer, onlyLoopback } from '../sandbox-streaming/support/peers';
import { FakeSignaling } from './support/fake-signaling';
import { offerOnConnect } from './support/fake-offerer';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { Viewer, startPublisher } from './support/peers';

// Every name lookup and every UDP datagram of this process is watched. Anything aimed beyond the
// loopback is recorded and refused before it leaves, so even a failing run sends nothing out.
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const lookups: string[] = [];
const outbound: string[] = [];

type Send = (this: dgram.Socket, ...args: unknown[]) => void;

beforeAll(() => {
  const refuse = (host: string): Error => Object.assign(new Error(`lookup of ${host} refused by the test`), { code: 'ENOTFOUND' });
  jest.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string) => {
    lookups.push(host);
    if (!LOOPBACK.has(host)) throw refuse(host);
    return { address: host === '::1' ? '::1' : '127.0.0.1', family: host === '::1' ? 6 : 4 };
  }) as never);
  jest.spyOn(dns, 'lookup').mockImplementation(((host: string, ...rest: unknown[]) => {
    lookups.push(host);
    const cb = rest[rest.length - 1] as (err: Error | null, address?: string, family?: number) => void;
    if (!LOOPBACK.has(host)) process.nextTick(() => cb(refuse(host)));
    else process.nextTick(() => cb(null, '127.0.0.1', 4));
  }) as never);
  const send = dgram.Socket.prototype.send as unknown as Send;
  jest.spyOn(dgram.Socket.prototype, 'send').mockImplementation(function (this: dgram.Socket, ...args: unknown[]) {
    // send(msg, port, address, cb) is the form werift uses; other forms would name no address.
    const address = typeof args[1] === 'number' ? args[2] : undefined;
    if (typeof address === 'string' && !LOOPBACK.has(address)) {
      outbound.push(address);
      const cb = args.find((a) => typeof a === 'function') as ((err: Error) => void) | undefined;
      if (cb) process.nextTick(() => cb(new Error(`datagram to ${address} refused by the test`)));
      return;
    }
    send.apply(this, args);
  } as never);
});

afterAll(() => {
  jest.restoreAllMocks();
});

beforeEach(() => {
  lookups.length = 0;
  outbound.length = 0;
});

const foreign = (list: string[]): string[] => list.filter((h) => !LOOPBACK.has(h));
const candidateAddresses = (sdp: string): string[] =>
  sdp
    .split(/\r?\n/)
    .filter((l) => l.startsWith('a=candidate:'))
    .map((l) => l.split(' ')[4]);

test("the watch sees werift's own default: a peer left alone looks up a public STUN server", async () => {
  const pc = new RTCPeerConnection({ iceUseIpv6: false, iceInterfaceAddresses: { udp4: '127.0.0.1' }, codecs: { video: [useVP8()], audio: [] } });
  try {
    pc.addTransceiver('video', { direction: 'recvonly' });
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    expect(foreign(lookups)).toContain('stun.l.google.com');
  } finally {
    await pc.close();
  }
});

describe('loopback mode talks to 127.0.0.1 only', () => {
  let h: StreamingHarness | undefined;
  let fake: FakeSignaling | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await fake?.stop();
    fake = undefined;
    await h?.stop();
    h = undefined;
  });

  test('publisher, sandbox SFU and viewer: media flows, no name is looked up, no datagram leaves the loopback', async () => {
    h = await startHarness();
    const room = await h.client.createRoom();
    const pub = await startPublisher(h.client, room.id);
    closers.push(() => pub.close());
    const viewer = new Viewer(h.client, room.id, 'VP8');
    closers.push(() => viewer.close());
    await viewer.start();
    await waitFor('frames', () => viewer.frames.length >= 10, 15_000);
    expect(foreign(lookups)).toEqual([]);
    expect(outbound).toEqual([]);
  });

  // Left to its default, a session whose ticket's signaling URL is this machine (a local sandbox)
  // keeps to loopback too, whichever host made it.
  test.each([
    ['set', { loopbackOnly: true }],
    ['left to its default, with a signaling URL on 127.0.0.1', { loopbackOnly: undefined }],
  ])("the client's answer and trickled candidates carry 127.0.0.1 only (loopbackOnly %s)", async (_how, extra) => {
    const peers: RTCPeerConnection[] = [];
    fake = await FakeSignaling.start(offerOnConnect((pc) => peers.push(pc)));
    closers.push(async () => {
      for (const pc of peers) await pc.close();
    });
    const session = fake.viewer(extra);
    closers.push(() => session.close());
    await session.start();
    const answer = fake.messages.find((m) => m.type === 'answer');
    const addresses = [
      ...candidateAddresses(String(answer?.sdp)),
      ...fake.messages.filter((m) => m.type === 'candidate').map((m) => String(m.candidate).split(' ')[4]),
    ];
    expect(addresses.length).toBeGreaterThan(0);
    expect(new Set(addresses)).toEqual(new Set(['127.0.0.1']));
    expect(foreign(lookups)).toEqual([]);
    expect(outbound).toEqual([]);
    // What werift would query for a server-reflexive candidate: a loopback address, never a public server.
    for (const pc of peers) for (const t of pc.iceTransports) expect(LOOPBACK.has(String(t.connection.stunServer?.[0]))).toBe(true);
  });
});

test('without ICE servers a client peer gathers host candidates only and queries no STUN server', async () => {
  const offerer = loopbackPeer('VP8');
  const pc = createPeer({ video: { codec_type: 'VP8' }, audio: false });
  try {
    offerer.addTransceiver('video', { direction: 'sendonly' });
    await offerer.setLocalDescription(await offerer.createOffer());
    await gathered(offerer);
    await pc.setRemoteDescription({ type: 'offer', sdp: onlyLoopback(offerer.localDescription?.sdp ?? '') });
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered(pc);
    const types = (pc.localDescription?.sdp ?? '')
      .split(/\r?\n/)
      .filter((l) => l.startsWith('a=candidate:'))
      .map((l) => l.split(' ')[7]);
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['host']));
    expect(foreign(lookups)).toEqual([]);
    expect(outbound).toEqual([]);
    for (const t of pc.iceTransports) expect(LOOPBACK.has(String(t.connection.stunServer?.[0]))).toBe(true);
  } finally {
    await pc.close();
    await offerer.close();
  }
});
