import { RawSignaling, connectMessage } from './support/signaling-client';
import { eventually, startStreamingFixture, type StreamingFixture } from './support/sandbox';
import type { RTCPeerConnection } from 'werift';
import { RecordingViewer, SyntheticPublisher, answer, type TestCodec } from './support/peers';

/** Polls a counter until it reaches `target` (bounded: 400 x 25 ms). */
async function reach(read: () => number, target: number): Promise<number> {
  return eventually(async () => read(), (value) => value >= target, 400, 25);
}

/**
 * Waits until a test peer is connected. Every peer is torn down only after its DTLS handshake is
 * over: werift keeps retransmitting an unfinished handshake for half a minute after close.
 */
async function connected(pc: RTCPeerConnection): Promise<void> {
  const state = await eventually(async () => pc.connectionState, (s) => s === 'connected' || s === 'failed' || s === 'closed', 400, 25);
  expect(state).toBe('connected');
}

describe('streaming sandbox: SFU media relay on werift', () => {
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

  async function publish(roomId: string, codec: TestCodec = 'VP8'): Promise<{ publisher: SyntheticPublisher; ws: RawSignaling }> {
    const ticket = await fx.ticket(roomId, 'up');
    const ws = await RawSignaling.open(ticket.url);
    cleanups.push(() => ws.terminate());
    const publisher = new SyntheticPublisher(codec);
    cleanups.push(() => publisher.stop());
    ws.send(connectMessage(ticket, { video: { codec_type: codec } }));
    const offer = await ws.next('offer');
    ws.send({ type: 'answer', sdp: await publisher.answer(offer.sdp as string) });
    await connected(publisher.pc);
    return { publisher, ws };
  }

  /** A viewer that answers with trickled candidates, and answers `update` offers too. */
  async function view(roomId: string, codec: TestCodec = 'VP8'): Promise<{ viewer: RecordingViewer; ws: RawSignaling }> {
    const ticket = await fx.ticket(roomId, 'down');
    const ws = await RawSignaling.open(ticket.url);
    cleanups.push(() => ws.terminate());
    const viewer = new RecordingViewer(codec);
    cleanups.push(() => viewer.stop());
    ws.send(connectMessage(ticket, { video: { codec_type: codec } }));
    const offer = await ws.next('offer');
    const { sdp, candidates } = await answer(viewer.pc, offer.sdp as string, true);
    ws.send({ type: 'answer', sdp });
    for (const candidate of candidates) ws.send({ type: 'candidate', candidate });
    await connected(viewer.pc);
    return { viewer, ws };
  }

  test('a viewer that joins gets a key frame without asking, even when the first requests are lost', async () => {
    const room = await fx.createRoom();
    const { publisher } = await publish(room.id);
    const first = await view(room.id);
    publisher.start(20);
    expect(await reach(() => first.viewer.keyframes, 1)).toBeGreaterThanOrEqual(1);
    // Key frames only on request, and the next two requests go unanswered.
    publisher.ignorePlis = 2;
    const plisBefore = publisher.plis;
    const late = await view(room.id);
    expect(await reach(() => late.viewer.keyframes, 1)).toBeGreaterThanOrEqual(1);
    expect(publisher.plis - plisBefore).toBeGreaterThanOrEqual(3);
    // Once the key frame has passed, the SFU stops asking.
    const settled = publisher.plis;
    const sent = publisher.sent;
    await reach(() => publisher.sent, sent + 50);
    expect(publisher.plis).toBe(settled);
  });

  test('VP8 from a publisher reaches a viewer, and a late viewer gets a key frame through PLI', async () => {
    const room = await fx.createRoom();
    const { publisher } = await publish(room.id);
    const first = await view(room.id);
    publisher.start(20);

    expect(await reach(() => first.viewer.packets, 20)).toBeGreaterThanOrEqual(20);
    expect(await reach(() => first.viewer.keyframes, 1)).toBeGreaterThanOrEqual(1);

    // The publisher sends key frames only when asked: a late viewer sees one only if its PLI went upstream.
    const plisBefore = publisher.plis;
    const late = await view(room.id);
    expect(await reach(() => late.viewer.keyframes, 1)).toBeGreaterThanOrEqual(1);
    expect(publisher.plis).toBeGreaterThan(plisBefore);
    expect(await reach(() => late.viewer.packets, 10)).toBeGreaterThanOrEqual(10);

    // A PLI a viewer sends on its own is forwarded to the publisher too.
    const receiver = late.viewer.pc.getTransceivers()[0].receiver;
    const ssrc = receiver.tracks[0]?.ssrc;
    expect(ssrc).toBeDefined();
    const plisNow = publisher.plis;
    const plis = await eventually(
      async () => {
        await receiver.sendRtcpPLI(ssrc as number);
        return publisher.plis;
      },
      (count) => count > plisNow,
      100,
      50,
    );
    expect(plis).toBeGreaterThan(plisNow);
  });

  test('up_count, down_count and the onair filter follow live sessions after the delay', async () => {
    const room = await fx.createRoom();
    const idle = await fx.createRoom();
    const readRoom = async (): Promise<{ up_count: number; down_count: number }> =>
      (await fx.call('GET', `/v1/rooms/${room.id}`)).json() as { up_count: number; down_count: number };

    const { ws: upWs } = await publish(room.id);
    await view(room.id);
    await view(room.id);
    const counted = await eventually(readRoom, (r) => r.up_count === 1 && r.down_count === 2, 200, 25);
    expect(counted).toMatchObject({ up_count: 1, down_count: 2 });

    const onair = (await fx.call('GET', '/v1/rooms?state=onair')).json() as { rooms: { id: string }[] };
    expect(onair.rooms.map((r) => r.id)).toEqual([room.id]);
    const all = (await fx.call('GET', '/v1/rooms?state=all')).json() as { rooms: { id: string }[] };
    expect(all.rooms.map((r) => r.id).sort()).toEqual([room.id, idle.id].sort());

    upWs.send({ type: 'disconnect' });
    const after = await eventually(readRoom, (r) => r.up_count === 0, 200, 25);
    expect(after).toMatchObject({ up_count: 0, down_count: 2 });
    expect((await fx.call('GET', '/v1/rooms?state=onair')).json()).toEqual({ rooms: [] });
  });

  test('a viewer waiting in an empty room gets the publisher that arrives, and a second one, each through update', async () => {
    const room = await fx.createRoom();
    const { viewer, ws } = await view(room.id);
    const answerUpdate = async (videoLines: number): Promise<void> => {
      const update = await ws.next('update');
      expect(typeof update.sdp).toBe('string');
      expect((update.sdp as string).match(/^m=video/gm)?.length).toBe(videoLines);
      await viewer.pc.setRemoteDescription({ type: 'offer', sdp: update.sdp as string });
      await viewer.pc.setLocalDescription(await viewer.pc.createAnswer());
      ws.send({ type: 'update', sdp: viewer.pc.localDescription?.sdp });
    };

    // The empty room's m-line is inactive; the first publisher takes it through an update (with its msid).
    const first = await publish(room.id);
    await answerUpdate(1);
    first.publisher.start(20);
    expect(await reach(() => viewer.keyframes, 1)).toBeGreaterThanOrEqual(1);

    // The second publisher needs a new m-line: another update.
    const second = await publish(room.id);
    await answerUpdate(2);
    const before = viewer.packets;
    second.publisher.start(20);
    expect(await reach(() => viewer.packets, before + 40)).toBeGreaterThanOrEqual(before + 40);
    expect(viewer.pc.getTransceivers().filter((t) => t.kind === 'video').length).toBe(2);
    expect(ws.ws.readyState).toBe(ws.ws.OPEN);
  });

  test.each<TestCodec>(['VP9', 'H264'])('%s RTP is relayed with the negotiated payload type; a VP8 viewer does not get it', async (codec) => {
    const room = await fx.createRoom();
    const { publisher } = await publish(room.id, codec);
    const same = await view(room.id, codec);
    const other = await view(room.id, 'VP8');
    publisher.start(20);
    expect(await reach(() => same.viewer.packets, 20)).toBeGreaterThanOrEqual(20);
    expect([...same.viewer.payloadTypes]).toEqual([codec === 'VP9' ? 98 : 102]);
    expect(other.viewer.packets).toBe(0);
  });
});
