import { RawSignaling, connectMessage, type Closed } from './support/signaling-client';
import { startStreamingFixture, type StreamingFixture } from './support/sandbox';

/** Sends the messages in order and waits for the server to close the socket. */
async function closeAfter(url: string, ...messages: unknown[]): Promise<Closed> {
  const ws = await RawSignaling.open(url);
  try {
    for (const message of messages) ws.send(message);
    return await ws.closed;
  } finally {
    ws.terminate();
  }
}

describe('streaming sandbox: signaling close reasons', () => {
  let fx: StreamingFixture;
  let room: { id: string };
  let up: Awaited<ReturnType<StreamingFixture['ticket']>>;
  let down: Awaited<ReturnType<StreamingFixture['ticket']>>;

  beforeAll(async () => {
    // Sessions of this suite must outlast several steps each: the connect and answer timeouts are
    // long here; the two tests about those timeouts run their own sandbox with short ones.
    fx = await startStreamingFixture({
      connectWaitTimeoutMs: 20_000,
      answerWaitTimeoutMs: 20_000,
      bitRateLimitKbps: 1000,
      maxConnectionsPerChannel: 2,
      maxConnections: 3,
    });
  });
  beforeEach(async () => {
    room = await fx.createRoom();
    up = await fx.ticket(room.id, 'up');
    down = await fx.ticket(room.id, 'down');
  });
  afterEach(async () => {
    await fx.reset();
  });
  afterAll(async () => {
    await fx.stop();
  });

  test('a valid connect gets an offer with the server candidates inside the SDP', async () => {
    const ws = await RawSignaling.open(up.url);
    try {
      ws.send(connectMessage(up));
      const offer = await ws.next('offer');
      expect(typeof offer.sdp).toBe('string');
      expect(typeof offer.client_id).toBe('string');
      expect(offer.config).toEqual({ iceServers: [], iceTransportPolicy: 'all' });
      const sdp = offer.sdp as string;
      expect(sdp).toMatch(/^v=0\r\n/);
      expect(sdp).toContain('m=video');
      expect(sdp).toContain('VP8/90000');
      const candidates = sdp.split('\r\n').filter((line) => line.startsWith('a=candidate:'));
      expect(candidates.length).toBeGreaterThan(0);
      for (const line of candidates) expect(line.split(' ')[4]).toBe('127.0.0.1');
    } finally {
      ws.terminate();
    }
  });

  test('the channel id may be the room id or the ticket id, and the codec asked for is offered', async () => {
    for (const codec of ['VP9', 'H264']) {
      const ws = await RawSignaling.open(down.url);
      try {
        ws.send(connectMessage(down, { channel_id: down.id, video: { codec_type: codec } }));
        const offer = await ws.next('offer');
        expect(offer.sdp).toContain(`${codec}/90000`);
        expect(offer.sdp).not.toContain('VP8/90000');
      } finally {
        ws.terminate();
      }
    }
  });

  test('RAPI-INVALID-TOKEN: unknown token, wrong room, wrong role, missing token', async () => {
    const other = await fx.createRoom();
    const cases: unknown[] = [
      connectMessage(up, { metadata: { access_token: 'made-up-token' } }),
      connectMessage(up, { channel_id: other.id }),
      connectMessage(up, { role: 'downstream' }),
      connectMessage(down, { role: 'upstream' }),
      connectMessage(up, { metadata: {} }),
      connectMessage(up, { metadata: undefined }),
    ];
    for (const message of cases) {
      expect(await closeAfter(up.url, message)).toEqual({ code: 4401, reason: 'RAPI-INVALID-TOKEN' });
    }
  });

  test('a deleted room makes its tickets invalid', async () => {
    expect((await fx.call('DELETE', `/v1/rooms/${room.id}`)).status).toBe(204);
    expect(await closeAfter(up.url, connectMessage(up))).toEqual({ code: 4401, reason: 'RAPI-INVALID-TOKEN' });
  });

  test('malformed messages: FAILURE-JSON-DECODE, MISSING-TYPE, UNKNOWN-TYPE', async () => {
    expect(await closeAfter(up.url, '{"type":')).toEqual({ code: 4400, reason: 'FAILURE-JSON-DECODE' });
    expect(await closeAfter(up.url, '{"role":"upstream"}')).toEqual({ code: 4400, reason: 'MISSING-TYPE' });
    expect(await closeAfter(up.url, '[1,2]')).toEqual({ code: 4400, reason: 'MISSING-TYPE' });
    expect(await closeAfter(up.url, { type: 42 })).toEqual({ code: 4400, reason: 'MISSING-TYPE' });
    expect(await closeAfter(up.url, { type: 'subscribe' })).toEqual({ code: 4400, reason: 'UNKNOWN-TYPE' });
  });

  test('bad connect fields: NOT-USE-CHANNEL-ID, codecs, media formats, NO-MEDIA, role', async () => {
    const expectations: [Record<string, unknown>, string][] = [
      [{ channel_id: undefined }, 'NOT-USE-CHANNEL-ID'],
      [{ channel_id: '' }, 'NOT-USE-CHANNEL-ID'],
      [{ video: { codec_type: 'AV1' } }, 'UNKNOWN-CODEC-TYPE'],
      [{ audio: { codec_type: 'AAC' } }, 'UNKNOWN-CODEC-TYPE'],
      [{ video: 'VP8' }, 'INVALID-VIDEO-FORMAT'],
      [{ video: { codec_type: 'VP8', bit_rate: 'fast' } }, 'INVALID-VIDEO-FORMAT'],
      [{ audio: 1 }, 'INVALID-AUDIO-FORMAT'],
      [{ video: false, audio: false }, 'NO-MEDIA'],
      [{ role: 'sideways' }, 'RAPI-INVALID-PARAMETER'],
    ];
    for (const [override, reason] of expectations) {
      const closed = await closeAfter(up.url, connectMessage(up, override));
      expect({ override, ...closed }).toEqual({ override, code: 4400, reason });
    }
  });

  test('a bit rate at or above the limit is RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS; below it is accepted', async () => {
    const closed = await closeAfter(up.url, connectMessage(up, { video: { codec_type: 'VP8', bit_rate: 1000 } }));
    expect(closed).toEqual({ code: 4429, reason: 'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS' });
    const ws = await RawSignaling.open(up.url);
    try {
      ws.send(connectMessage(up, { video: { codec_type: 'VP8', bit_rate: 999 } }));
      expect((await ws.next('offer')).type).toBe('offer');
    } finally {
      ws.terminate();
    }
  });

  test('answers without or with broken SDP: FAILURE-MISSING-SDP, FAILURE-SDP-PARSE, MISSING-ICE-SDP', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'answer' }, 'FAILURE-MISSING-SDP'],
      [{ type: 'answer', sdp: '' }, 'FAILURE-MISSING-SDP'],
      [{ type: 'answer', sdp: 'this is not sdp' }, 'FAILURE-SDP-PARSE'],
      [{ type: 'answer', sdp: 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n' }, 'MISSING-ICE-SDP'],
    ];
    for (const [answer, reason] of cases) {
      const ws = await RawSignaling.open(up.url);
      try {
        ws.send(connectMessage(up));
        await ws.next('offer');
        ws.send(answer);
        expect(await ws.closed).toEqual({ code: 4400, reason });
      } finally {
        ws.terminate();
      }
    }
  });

  test('a candidate message without a candidate string is RAPI-INVALID-PARAMETER', async () => {
    const ws = await RawSignaling.open(up.url);
    try {
      ws.send(connectMessage(up));
      await ws.next('offer');
      ws.send({ type: 'candidate', candidate: 5 });
      expect(await ws.closed).toEqual({ code: 4400, reason: 'RAPI-INVALID-PARAMETER' });
    } finally {
      ws.terminate();
    }
  });

  test('connection limits: RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS per room, EXCEED-MAX-CONNECTIONS per server', async () => {
    const open: RawSignaling[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const ws = await RawSignaling.open(down.url);
        open.push(ws);
        ws.send(connectMessage(down));
        await ws.next('offer');
      }
      expect(await closeAfter(down.url, connectMessage(down))).toEqual({ code: 4429, reason: 'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS' });

      const second = await fx.createRoom();
      const other = await fx.ticket(second.id, 'down');
      const ws = await RawSignaling.open(other.url);
      open.push(ws);
      ws.send(connectMessage(other));
      await ws.next('offer');
      expect(await closeAfter(other.url, connectMessage(other))).toEqual({ code: 4429, reason: 'EXCEED-MAX-CONNECTIONS' });

      // A session that leaves frees its place.
      await open.shift()?.close();
      const again = await RawSignaling.open(down.url);
      open.push(again);
      again.send(connectMessage(down));
      expect((await again.next('offer')).type).toBe('offer');
    } finally {
      for (const ws of open) ws.terminate();
    }
  });

  test('disconnect from the client closes normally', async () => {
    const ws = await RawSignaling.open(up.url);
    try {
      ws.send(connectMessage(up));
      await ws.next('offer');
      ws.send({ type: 'disconnect' });
      expect((await ws.closed).code).toBe(1000);
    } finally {
      ws.terminate();
    }
  });
});

describe('streaming sandbox: signaling timeouts', () => {
  // Nothing has to happen before these timeouts: the tests only wait for them.
  test('CONNECT-WAIT-TIMEOUT when no connect arrives', async () => {
    const fx = await startStreamingFixture({ connectWaitTimeoutMs: 200 });
    try {
      const room = await fx.createRoom();
      const up = await fx.ticket(room.id, 'up');
      expect(await closeAfter(up.url)).toEqual({ code: 4408, reason: 'CONNECT-WAIT-TIMEOUT' });
    } finally {
      await fx.stop();
    }
  });

  test('CONNECTION-CREATED-WAIT-TIMEOUT-ERROR when the answer does not come', async () => {
    const fx = await startStreamingFixture({ answerWaitTimeoutMs: 300 });
    try {
      const room = await fx.createRoom();
      const up = await fx.ticket(room.id, 'up');
      const ws = await RawSignaling.open(up.url);
      try {
        ws.send(connectMessage(up));
        await ws.next('offer');
        expect(await ws.closed).toEqual({ code: 4408, reason: 'CONNECTION-CREATED-WAIT-TIMEOUT-ERROR' });
      } finally {
        ws.terminate();
      }
    } finally {
      await fx.stop();
    }
  });
});

describe('streaming sandbox: ticket lifetime', () => {
  test('an expired ticket token is RAPI-INVALID-TOKEN', async () => {
    const fx = await startStreamingFixture({ ticketLifetimeSeconds: 0 });
    try {
      const room = await fx.createRoom();
      const ticket = await fx.ticket(room.id, 'up');
      expect(await closeAfter(ticket.url, connectMessage(ticket))).toEqual({ code: 4401, reason: 'RAPI-INVALID-TOKEN' });
    } finally {
      await fx.stop();
    }
  });
});
