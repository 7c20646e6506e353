import type { RTCPeerConnection } from 'werift';
import { SyntheticPublisher } from './support/peers';
import { inactiveMids, SampleViewer, videoMsids, videoPorts } from './support/sample-viewer';
import { RawSignaling, connectMessage } from './support/signaling-client';
import { eventually, startStreamingFixture, type StreamingFixture } from './support/sandbox';

/**
 * Waits until a test peer is connected (peers are torn down only after their DTLS handshake); when it
 * is not, the failure names which of its transports did not get there (ICE or DTLS).
 */
async function connected(pc: RTCPeerConnection): Promise<void> {
  const state = await eventually(async () => pc.connectionState, (s) => s === 'connected' || s === 'failed' || s === 'closed', 400, 25);
  expect({ state, ice: pc.iceConnectionState, dtls: pc.dtlsTransports.map((t) => t.state) }).toMatchObject({ state: 'connected' });
}

/** Polls until `read()` reaches `target` (bounded: 400 x 25 ms). */
async function reach(read: () => number, target: number): Promise<number> {
  return eventually(async () => read(), (value) => value >= target, 400, 25);
}

describe('streaming sandbox: every relayed stream is named by its publisher (a=msid)', () => {
  let fx: StreamingFixture;
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    fx = await startStreamingFixture({ countDelayMs: 50 });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await fx.reset();
  });
  afterAll(async () => {
    await fx.stop();
  });

  /** A sending publisher and the client_id its own offer gave it. */
  async function publish(roomId: string): Promise<{ clientId: string; ws: RawSignaling; publisher: SyntheticPublisher }> {
    const ticket = await fx.ticket(roomId, 'up');
    const ws = await RawSignaling.open(ticket.url);
    cleanups.push(() => ws.terminate());
    const publisher = new SyntheticPublisher('VP8');
    cleanups.push(() => publisher.stop());
    ws.send(connectMessage(ticket));
    const offer = await ws.next('offer');
    ws.send({ type: 'answer', sdp: await publisher.answer(offer.sdp as string) });
    await connected(publisher.pc);
    publisher.start(20);
    return { clientId: offer.client_id as string, ws, publisher };
  }

  async function view(roomId: string, audio = false, rejectFreed = false): Promise<{ viewer: SampleViewer; ws: RawSignaling }> {
    const ticket = await fx.ticket(roomId, 'down');
    const ws = await RawSignaling.open(ticket.url);
    cleanups.push(() => ws.terminate());
    const viewer = new SampleViewer(ws, audio, rejectFreed);
    cleanups.push(() => viewer.stop());
    ws.send(connectMessage(ticket, audio ? { audio: { codec_type: 'OPUS' } } : {}));
    await viewer.join();
    await connected(viewer.pc);
    return { viewer, ws };
  }

  test('a viewer that ignores streams with id "default" plays a publisher already there', async () => {
    const room = await fx.createRoom();
    const a = await publish(room.id);
    const { viewer } = await view(room.id);
    const [msid] = videoMsids(viewer.offers[0]);
    expect(msid).toMatch(new RegExp(`^${a.clientId} \\S+$`));
    expect(await reach(() => viewer.packets(a.clientId), 20)).toBeGreaterThanOrEqual(20);
    expect(viewer.announced).toEqual([a.clientId]);
  });

  test('a viewer waiting in an empty room plays the publisher that arrives (announced by update)', async () => {
    const room = await fx.createRoom();
    const { viewer } = await view(room.id);
    // Nothing to show yet: an inactive m-line without msid, which no page hands over.
    expect(videoMsids(viewer.offers[0])).toEqual([undefined]);
    expect(viewer.offers[0]).toMatch(/\r\na=inactive/);
    const a = await publish(room.id);
    expect(await reach(() => viewer.packets(a.clientId), 20)).toBeGreaterThanOrEqual(20);
    expect(viewer.offers.length).toBeGreaterThanOrEqual(2);
    expect(videoMsids(viewer.offers[viewer.offers.length - 1])[0]).toMatch(new RegExp(`^${a.clientId} `));
    expect(viewer.announced).toEqual([a.clientId]);
  });

  test('two publishers are two streams; one leaves and the other plays on; a third is a new stream', async () => {
    const room = await fx.createRoom();
    const a = await publish(room.id);
    const b = await publish(room.id);
    expect(a.clientId).not.toBe(b.clientId);
    const { viewer } = await view(room.id);
    expect(new Set(videoMsids(viewer.offers[0]).map((m) => m?.split(' ')[0]))).toEqual(new Set([a.clientId, b.clientId]));
    await reach(() => Math.min(viewer.packets(a.clientId), viewer.packets(b.clientId)), 20);
    expect(new Set(viewer.announced)).toEqual(new Set([a.clientId, b.clientId]));

    // A leaves: an update takes its stream away (its m-line inactive, no msid), B keeps its own.
    const offersBefore = viewer.offers.length;
    await a.ws.close();
    await eventually(async () => viewer.offers.length, (n) => n > offersBefore, 400, 25);
    const afterLeave = viewer.offers[offersBefore];
    expect(afterLeave).not.toContain(a.clientId);
    expect(videoMsids(afterLeave).filter((m) => m !== undefined).map((m) => m?.split(' ')[0])).toEqual([b.clientId]);
    const bPackets = viewer.packets(b.clientId);
    expect(await reach(() => viewer.packets(b.clientId), bPackets + 20)).toBeGreaterThanOrEqual(bPackets + 20);
    const aPackets = viewer.packets(a.clientId);

    // C joins: a new stream under C's own id, on a fresh announcement; A's id never comes back.
    const c = await publish(room.id);
    expect([a.clientId, b.clientId]).not.toContain(c.clientId);
    expect(await reach(() => viewer.packets(c.clientId), 20)).toBeGreaterThanOrEqual(20);
    expect(viewer.announced.slice(2)).toEqual([c.clientId]);
    expect(viewer.packets(a.clientId)).toBe(aPackets);
    const last = viewer.offers[viewer.offers.length - 1];
    expect(new Set(videoMsids(last).filter((m) => m !== undefined).map((m) => m?.split(' ')[0]))).toEqual(new Set([b.clientId, c.clientId]));
    // C took the m-line A left: the m-lines do not pile up.
    expect(videoMsids(last)).toHaveLength(2);
  });

  // The vendor's two browser SDK revisions: one hands the page a stream only when its id is not
  // 'default', the other sets srcObject = event.streams[0] on every track event, the last winning.
  // Both must end with the video on the page, whatever the viewer asked for.
  describe.each([
    ['without audio', false],
    ['asking for audio', true],
  ])('a viewer %s', (_name, audio) => {
    test.each([1, 2])('with %i publisher(s): both SDK behaviours end with a stream that holds the video', async (count) => {
      const room = await fx.createRoom();
      const publishers = [];
      for (let i = 0; i < count; i++) publishers.push(await publish(room.id));
      const { viewer } = await view(room.id, audio);
      for (const p of publishers) expect(await reach(() => viewer.packets(p.clientId), 20)).toBeGreaterThanOrEqual(20);
      expect(viewer.pageStream).not.toBe('default');
      expect(viewer.pageHasVideo).toBe(true);
      expect(viewer.streamKinds.has('default')).toBe(false);
    });
  });

  // A freed m-line answered with port 0 is stopped: the next camera comes on another m-line.
  describe.each([
    ['answers freed m-lines with port 0', true],
    ['answers freed m-lines with a live port', false],
  ])('a viewer that %s', (_name, rejectFreed) => {
    test('ends with exactly the live publishers, each with media: one leaves, then one joins', async () => {
      const room = await fx.createRoom();
      const a = await publish(room.id);
      const b = await publish(room.id);
      const { viewer } = await view(room.id, false, rejectFreed);
      await reach(() => Math.min(viewer.packets(a.clientId), viewer.packets(b.clientId)), 20);
      const before = viewer.offers.length;
      await a.ws.close();
      await eventually(async () => viewer.offers.length, (n) => n > before, 400, 25);
      const c = await publish(room.id);
      expect(await reach(() => viewer.packets(c.clientId), 20)).toBeGreaterThanOrEqual(20);
      const bNow = viewer.packets(b.clientId);
      expect(await reach(() => viewer.packets(b.clientId), bNow + 20)).toBeGreaterThanOrEqual(bNow + 20);
      const last = viewer.offers[viewer.offers.length - 1];
      const live = videoMsids(last).map((m, i) => (videoPorts(last)[i] === 0 ? undefined : m?.split(' ')[0])).filter((m) => m !== undefined);
      expect(new Set(live)).toEqual(new Set([b.clientId, c.clientId]));
      // The rejected m-line never carries C: C is on an m-line of its own, or on a recycled one under a new mid.
      const freed = inactiveMids(viewer.offers[before]);
      expect(freed.size).toBe(1);
      const cSection = last.split('\r\nm=').find((section) => section.includes(`a=msid:${c.clientId} `))!;
      const cMid = /\r\na=mid:([^\r\n]+)/.exec(cSection)?.[1];
      if (rejectFreed) expect(freed.has(cMid!)).toBe(false);
    });

    test('a leave and a join in quick succession (the join before the leave was answered)', async () => {
      const room = await fx.createRoom();
      const a = await publish(room.id);
      const b = await publish(room.id);
      const { viewer } = await view(room.id, false, rejectFreed);
      await reach(() => Math.min(viewer.packets(a.clientId), viewer.packets(b.clientId)), 20);
      const [, c] = await Promise.all([a.ws.close(), publish(room.id)]);
      expect(await reach(() => viewer.packets(c.clientId), 20)).toBeGreaterThanOrEqual(20);
      const bNow = viewer.packets(b.clientId);
      expect(await reach(() => viewer.packets(b.clientId), bNow + 20)).toBeGreaterThanOrEqual(bNow + 20);
      const last = await eventually(async () => viewer.offers[viewer.offers.length - 1], (sdp) => !sdp.includes(a.clientId), 400, 25);
      const live = videoMsids(last).map((m, i) => (videoPorts(last)[i] === 0 ? undefined : m?.split(' ')[0])).filter((m) => m !== undefined);
      expect(new Set(live)).toEqual(new Set([b.clientId, c.clientId]));
    });
  });

  test('a bad update from one viewer closes that viewer only: not SDP, an offer instead of an answer, an answer to no offer', async () => {
    const room = await fx.createRoom();
    const a = await publish(room.id);
    const { viewer: steady } = await view(room.id);
    await reach(() => steady.packets(a.clientId), 20);
    const cases: [(last: string) => unknown, string][] = [
      [() => 'this is not sdp', 'FAILURE-SDP-PARSE'],
      [(last) => last, 'FAILURE-SDP-PARSE'], // the server's own offer sent back: not an answer
      [(last) => last.replace('a=sendonly', 'a=recvonly'), 'FAILURE-SDP-PARSE'], // an answer while no update was offered
    ];
    for (const [sdp, reason] of cases) {
      const { viewer, ws } = await view(room.id);
      await reach(() => viewer.packets(a.clientId), 5);
      ws.send({ type: 'update', sdp: sdp(viewer.offers[viewer.offers.length - 1]) });
      expect(await ws.closed).toEqual({ code: 4400, reason });
      // The room goes on: the publisher still sends, the other viewer still plays.
      const before = steady.packets(a.clientId);
      expect(await reach(() => steady.packets(a.clientId), before + 10)).toBeGreaterThanOrEqual(before + 10);
    }
  });
});
