import { inspect } from 'node:util';
import type { RTCPeerConnection } from 'werift';
import { InputError } from '../../shared/errors';
import { CLOSE_REASONS, SignalingError, SignalingSession, errorFromClose, rejoinDelay, type SessionOptions } from '../../shared/signaling';
import type { Ticket } from '../../shared/streaming';
import { FakeSignaling } from './support/fake-signaling';
import { offerOnConnect } from './support/fake-offerer';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { FAST_REJOIN, Viewer } from './support/peers';

const SPEC_REASONS: Record<string, 'new-ticket' | 'backoff' | 'never'> = {
  'CONNECT-WAIT-TIMEOUT': 'backoff',
  'CONNECT-WAIT-TIMEOUT-ERROR': 'backoff',
  'CONNECTION-CREATED-WAIT-TIMEOUT-ERROR': 'backoff',
  'EXCEED-MAX-CONNECTIONS': 'backoff',
  'FAILURE-JSON-DECODE': 'never',
  'FAILURE-SDP-PARSE': 'never',
  'FAILURE-MISSING-SDP': 'never',
  'INTERNAL-ERROR': 'backoff',
  'INVALID-AUDIO-FORMAT': 'never',
  'INVALID-VIDEO-FORMAT': 'never',
  'MISSING-ICE-SDP': 'never',
  'MISSING-TYPE': 'never',
  'NO-MEDIA': 'never',
  'NOT-USE-CHANNEL-ID': 'never',
  'PONG-TIMEOUT-ERROR': 'backoff',
  'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS': 'backoff',
  'RAPI-INTERNAL-ERROR': 'backoff',
  'RAPI-INVALID-TOKEN': 'new-ticket',
  'RAPI-INVALID-PARAMETER': 'never',
  'SIGNALING-INTERNAL-ERROR': 'backoff',
  'TRANSPORT-INTERNAL-ERROR': 'backoff',
  'UNKNOWN-CODEC-TYPE': 'never',
  'UNKNOWN-TYPE': 'never',
};

/** JSON of an object graph with cycles (cycles and functions left out). */
function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return String(v);
    if (v && typeof v === 'object') {
      if (seen.has(v)) return undefined;
      seen.add(v);
    }
    return v;
  });
}

/** Reasons the client raises itself; the service never sends them. */
const CLIENT_REASONS = ['CONNECTION-LOST', 'CONNECT-FAILED', 'SIGNALING-TIMEOUT', 'SERVER-SILENT', 'ICE-FAILED', 'PROTOCOL-ERROR', 'TICKET-FAILED', 'UNKNOWN-REASON'];

/** Sessions and viewers of the running test; closed after it whether it passed or not. */
const closers: (() => Promise<unknown>)[] = [];
/** Registers something to close after the test, and returns it. */
function closing<T extends { close(): Promise<unknown> }>(thing: T): T {
  closers.push(() => thing.close());
  return thing;
}
async function closeAll(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
}

function closedWith(session: SignalingSession): Promise<SignalingError | undefined> {
  return new Promise((resolve) => session.once('closed', ({ error }) => resolve(error)));
}

describe('close reasons', () => {
  test.each(Object.entries(SPEC_REASONS))('%s -> rejoin %s', (reason, advice) => {
    const err = errorFromClose(4000, reason);
    expect(err).toBeInstanceOf(SignalingError);
    expect(err).toMatchObject({ name: 'SignalingError', reason, rejoin: advice, closeCode: 4000 });
    expect(err.message).toContain(reason);
  });

  test('the table covers the spec exactly, plus client-side reasons', () => {
    expect(Object.keys(SPEC_REASONS)).toHaveLength(23);
    const serverSide = Object.keys(CLOSE_REASONS).filter((r) => !CLIENT_REASONS.includes(r));
    expect(serverSide.sort()).toEqual(Object.keys(SPEC_REASONS).sort());
    for (const reason of CLIENT_REASONS) expect(CLOSE_REASONS[reason]).toBeDefined();
  });

  test('unknown, empty and hostile reasons are handled sanely', () => {
    expect(errorFromClose(4999, 'BRAND-NEW-REASON')).toMatchObject({ reason: 'BRAND-NEW-REASON', rejoin: 'backoff' });
    expect(errorFromClose(1006, '')).toMatchObject({ reason: 'CONNECTION-LOST', rejoin: 'backoff', closeCode: 1006 });
    const long = errorFromClose(4000, `X${'\u0000'.repeat(5)}${'A'.repeat(500)}`);
    expect(long.reason.length).toBeLessThanOrEqual(80);
    expect(long.reason).not.toContain('\u0000');
  });

  test('rejoin delays use full jitter under an exponential cap', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(rejoinDelay(policy, 1, () => 0.999)).toBeLessThan(100);
    expect(rejoinDelay(policy, 3, () => 0.999)).toBeLessThan(400);
    expect(rejoinDelay(policy, 3, () => 0.999)).toBeGreaterThan(390);
    expect(rejoinDelay(policy, 30, () => 0.999)).toBeLessThan(1000);
    expect(rejoinDelay(policy, 30, () => 0)).toBe(0);
  });
});

describe('connect settings are checked before anything is sent', () => {
  const cases: [string, Partial<SessionOptions>][] = [
    ['role', { role: 'sideways' as never }],
    ['video.codec_type', { video: { codec_type: 'AV1' as never } }],
    ['video.bit_rate', { video: { codec_type: 'VP8', bit_rate: 0 } }],
    ['video.bit_rate', { video: { codec_type: 'VP8', bit_rate: 1.5 } }],
    ['video.bit_rate', { video: { codec_type: 'VP8', bit_rate: -3 } }],
    ['audio.codec_type', { audio: { codec_type: 'AAC' as never } }],
    ['video', { video: false, audio: false }],
    ['video', { video: 'VP8' as never }],
    ['channel_id', { channelId: '' }],
    ['rejoin.maxAttempts', { rejoin: { maxAttempts: -1 } }],
    ['rejoin.maxDelayMs', { rejoin: { baseDelayMs: 100, maxDelayMs: 10 } }],
    ['timeouts.signalingMs', { timeouts: { signalingMs: 0 } }],
  ];
  test.each(cases)('%s', (field, bad) => {
    let tickets = 0;
    const make = () =>
      new SignalingSession({
        role: 'downstream',
        getTicket: async () => {
          tickets++;
          throw new Error('must not be called');
        },
        ...bad,
      });
    expect(make).toThrow(InputError);
    try {
      make();
    } catch (err) {
      expect(err).toMatchObject({ name: 'InputError', field });
      expect((err as InputError).limit).toBeTruthy();
    }
    expect(tickets).toBe(0);
  });
});

describe('against a hand-made signaling server', () => {
  let fake: FakeSignaling | undefined;
  afterEach(async () => {
    await closeAll();
    await fake?.stop();
    fake = undefined;
  });

  const ticketFor = (url: string, token = 'ticket-token-value-123'): Ticket => ({ id: 'fake-room', direction: 'down', url, access_token: token });

  test('connect carries role, channel, token and media; disconnect is sent on close', async () => {
    fake = await FakeSignaling.start(() => undefined);
    const url = fake.url;
    const session = closing(new SignalingSession({ role: 'upstream', video: { codec_type: 'H264', bit_rate: 800 }, getTicket: async () => ticketFor(url) }));
    void session.start();
    await waitFor('connect', () => fake!.messages.length > 0, 5000);
    expect(fake.messages[0]).toEqual({
      type: 'connect',
      role: 'upstream',
      channel_id: 'fake-room',
      metadata: { access_token: 'ticket-token-value-123' },
      video: { codec_type: 'H264', bit_rate: 800 },
      audio: false,
    });
    const closed = closedWith(session);
    await session.close();
    await session.close(); // idempotent
    expect(await closed).toBeUndefined();
    await waitFor('disconnect', () => fake!.messages.some((m) => m.type === 'disconnect'), 5000);
  });

  test('a plain-object ticket: its token shows up in no inspection or serialisation of the session', async () => {
    fake = await FakeSignaling.start(() => undefined);
    const url = fake.url;
    const token = 'plain-object-ticket-token-987';
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor(url, token), rejoin: false }));
    void session.start();
    await waitFor('connect', () => fake!.messages.some((m) => m.type === 'connect'), 5000);
    expect(fake.messages[0]).toMatchObject({ metadata: { access_token: token } });
    // The connection and the ticket live in private (#) fields, which neither reaches.
    expect(inspect(session, { depth: 8, showHidden: true })).not.toContain(token);
    expect(safeJson(session)).not.toContain(token);
    await session.close();
  });

  test("a 'never' reason stops the session at once: no rejoin loop", async () => {
    fake = await FakeSignaling.start((ws) => ws.close(4400, 'FAILURE-SDP-PARSE'));
    const url = fake.url;
    let tickets = 0;
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => (tickets++, ticketFor(url)), rejoin: FAST_REJOIN }));
    const rejoins: unknown[] = [];
    session.on('rejoining', (r) => rejoins.push(r));
    const errors: SignalingError[] = [];
    session.on('error', (e) => errors.push(e));
    const closed = closedWith(session);
    await expect(session.start()).rejects.toMatchObject({ reason: 'FAILURE-SDP-PARSE', rejoin: 'never' });
    const err = await closed;
    expect(err).toMatchObject({ reason: 'FAILURE-SDP-PARSE', rejoin: 'never', closeCode: 4400 });
    expect(errors).toEqual([err]);
    expect(rejoins).toEqual([]);
    expect(tickets).toBe(1);
    await session.close();
  });

  test('an unknown reason backs off; bounded attempts give up with a clear error; no secret leaks', async () => {
    fake = await FakeSignaling.start((ws) => ws.close(4000, 'SOMETHING-NEW'));
    const url = fake.url;
    let tickets = 0;
    const session = closing(new SignalingSession({
      role: 'downstream',
      getTicket: async () => (tickets++, ticketFor(url, 'secret-ticket-token-xyz')),
      rejoin: { ...FAST_REJOIN, maxAttempts: 2 },
    }));
    const rejoins: number[] = [];
    session.on('rejoining', (r) => rejoins.push(r.attempt));
    const closed = closedWith(session);
    void session.start();
    const err = await closed;
    expect(err).toMatchObject({ reason: 'SOMETHING-NEW', rejoin: 'backoff' });
    expect(err?.message).toMatch(/gave up after 2 rejoin attempts/);
    expect(rejoins).toEqual([1, 2]);
    expect(tickets).toBe(3);
    for (const text of [err?.message, JSON.stringify(err), inspect(err), err?.stack]) expect(text).not.toContain('secret-ticket-token-xyz');
  });

  test('notify and push are passed on as notice events (token masked); unknown types and garbage are ignored; pings still answered', async () => {
    const token = 'ticket-token-in-a-notice';
    fake = await FakeSignaling.start((ws) => {
      for (const text of [
        JSON.stringify({ type: 'notify', event_type: 'connection.created' }),
        JSON.stringify({ type: 'push', data: { hello: 1, echo: [`token=${token}`] } }),
        JSON.stringify({ type: 'brand-new-type' }),
        'not json at all',
        JSON.stringify(['array']),
        JSON.stringify({ type: 'offer' }), // no sdp: not an offer
        JSON.stringify({ type: 'ping' }),
      ]) {
        ws.send(text);
      }
    });
    const url = fake.url;
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor(url, token), rejoin: false }));
    const closed = jest.fn();
    session.on('closed', closed);
    const notices: Record<string, unknown>[] = [];
    session.on('notice', (n) => notices.push(n));
    void session.start();
    await waitFor('pong', () => fake!.messages.some((m) => m.type === 'pong'), 5000);
    expect(notices).toEqual([
      { type: 'notify', event_type: 'connection.created' },
      { type: 'push', data: { hello: 1, echo: ['token=[redacted]'] } },
    ]);
    expect(closed).not.toHaveBeenCalled();
    await session.close();
    expect(closed).toHaveBeenCalledWith({ error: undefined });
  });

  test('a server that stops talking after pinging counts as gone (SERVER-SILENT)', async () => {
    fake = await FakeSignaling.start((ws) => ws.send(JSON.stringify({ type: 'ping' })));
    const url = fake.url;
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor(url), rejoin: false, timeouts: { idleMs: 300 } }));
    const closed = closedWith(session);
    void session.start();
    expect(await closed).toMatchObject({ reason: 'SERVER-SILENT', rejoin: 'backoff' });
    expect(fake.messages.filter((m) => m.type === 'pong')).toHaveLength(1);
  });

  test('a failing ticket source: retryable errors back off, final ones stop', async () => {
    let calls = 0;
    const flaky = closing(new SignalingSession({
      role: 'downstream',
      getTicket: async () => {
        calls++;
        throw Object.assign(new Error('HTTP 404'), { retryable: false });
      },
      rejoin: FAST_REJOIN,
    }));
    const closed = closedWith(flaky);
    void flaky.start();
    expect(await closed).toMatchObject({ reason: 'TICKET-FAILED', rejoin: 'never' });
    expect(calls).toBe(1);
  });

  test("host listeners that throw, added before start(), neither stop the listeners after them nor keep start() pending", async () => {
    const peers: RTCPeerConnection[] = [];
    fake = await FakeSignaling.start(offerOnConnect((pc) => peers.push(pc)));
    const url = fake.url;
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor(url), loopbackOnly: true, rejoin: false }));
    const seen: string[] = [];
    session.on('connected', () => {
      throw new Error('host bug in a connected listener');
    });
    session.on('connected', () => seen.push('connected after the throwing one'));
    session.on('closed', () => {
      throw new Error('host bug in a closed listener');
    });
    session.on('closed', () => seen.push('closed after the throwing one'));
    const reported: { event: string; error: unknown }[] = [];
    session.on('listenerError', (info) => reported.push(info));
    try {
      await expect(session.start()).resolves.toMatchObject({ joins: 1 });
      await session.close();
      expect(seen).toEqual(['connected after the throwing one', 'closed after the throwing one']);
      // Not swallowed: each throw is reported with the event it came from.
      expect(reported).toEqual([
        { event: 'connected', error: expect.objectContaining({ message: 'host bug in a connected listener' }) },
        { event: 'closed', error: expect.objectContaining({ message: 'host bug in a closed listener' }) },
      ]);
    } finally {
      await session.close();
      for (const pc of peers) await pc.close();
    }
  });

  test('with no listenerError listener, a throwing listener is reported as a process warning', async () => {
    fake = await FakeSignaling.start((ws) => ws.close(4400, 'FAILURE-SDP-PARSE'));
    const url = fake.url;
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor(url), rejoin: false }));
    session.on('closed', () => {
      throw new Error('host bug in a closed listener');
    });
    // Jest gives each test file its own `process` object, whose 'warning' events never fire: watch the call.
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await expect(session.start()).rejects.toMatchObject({ reason: 'FAILURE-SDP-PARSE' });
      const warnings = emitWarning.mock.calls.map(([w]) => w).filter((w): w is Error => w instanceof Error && w.name === 'ListenerError');
      expect(warnings).toHaveLength(1);
      expect(warnings[0].message).toContain("'closed'");
      expect(warnings[0].message).toContain('host bug in a closed listener');
      expect((warnings[0].cause as Error).message).toBe('host bug in a closed listener');
    } finally {
      emitWarning.mockRestore();
    }
  });

  test('a throwing closed or error listener does not keep a failed start() pending', async () => {
    fake = await FakeSignaling.start((ws) => ws.close(4400, 'FAILURE-SDP-PARSE'));
    const url = fake.url;
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor(url), rejoin: false }));
    session.on('error', () => {
      throw new Error('host bug in an error listener');
    });
    session.on('closed', () => {
      throw new Error('host bug in a closed listener');
    });
    await expect(session.start()).rejects.toMatchObject({ reason: 'FAILURE-SDP-PARSE' });
  });

  test.each([undefined, null, 'a string', 42])('a ticket source rejecting with %p ends the session with TICKET-FAILED', async (reason) => {
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: () => Promise.reject(reason), rejoin: false }));
    const closed = closedWith(session);
    const err = await session.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignalingError);
    expect(err).toMatchObject({ reason: 'TICKET-FAILED' });
    expect(await closed).toBe(err);
  });

  test('close() before start and start() after close are harmless', async () => {
    const session = closing(new SignalingSession({ role: 'downstream', getTicket: async () => ticketFor('ws://127.0.0.1:9/') }));
    const closed = closedWith(session);
    await session.close();
    expect(await closed).toBeUndefined();
    await expect(session.start()).rejects.toBeInstanceOf(SignalingError);
  });
});

describe('close reasons the sandbox produces', () => {
  let h: StreamingHarness | undefined;
  afterEach(async () => {
    await closeAll();
    await h?.stop();
    h = undefined;
  });

  test('RAPI-INVALID-TOKEN asks for a new ticket; the next (valid) ticket joins at once', async () => {
    h = await startHarness();
    const client = h.client;
    const room = await client.createRoom();
    let n = 0;
    const forged = async (): Promise<Ticket> => {
      const t = await client.createTicket(room.id);
      return n++ === 0 ? { id: t.id, url: t.url, direction: t.direction, access_token: 'forged-token' } : t;
    };
    const strict = closing(new SignalingSession({ role: 'downstream', getTicket: forged, loopbackOnly: true, rejoin: false }));
    const err = await strict.start().catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'RAPI-INVALID-TOKEN', rejoin: 'new-ticket' });
    expect(JSON.stringify(err)).not.toContain('forged-token');
    n = 0;
    const patient = closing(new SignalingSession({ role: 'downstream', getTicket: forged, loopbackOnly: true, rejoin: FAST_REJOIN }));
    const rejoins: { delayMs: number; reason: string }[] = [];
    patient.on('rejoining', (r) => rejoins.push({ delayMs: r.delayMs, reason: r.error.reason }));
    await expect(patient.start()).resolves.toMatchObject({ joins: 1 });
    expect(rejoins).toEqual([{ delayMs: 0, reason: 'RAPI-INVALID-TOKEN' }]);
    await patient.close();
  });

  test('a bit rate above the limit and a full channel: RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS', async () => {
    h = await startHarness({ maxConnectionsPerChannel: 1, bitRateLimitKbps: 2000 });
    const room = await h.client.createRoom();
    const tooFast = closing(new Viewer(h.client, room.id, 'VP8', { video: { codec_type: 'VP8', bit_rate: 2500 }, rejoin: { ...FAST_REJOIN, maxAttempts: 1 } }));
    await expect(tooFast.start()).rejects.toMatchObject({ reason: 'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS', rejoin: 'backoff' });
    const first = closing(new Viewer(h.client, room.id, 'VP8'));
    await first.start();
    const second = closing(new Viewer(h.client, room.id, 'VP8', { rejoin: false }));
    await expect(second.start()).rejects.toMatchObject({ reason: 'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS', closeCode: 4429 });
    await first.close();
  });

  test('EXCEED-MAX-CONNECTIONS when the server is full', async () => {
    h = await startHarness({ maxConnections: 1 });
    const [a, b] = [await h.client.createRoom(), await h.client.createRoom()];
    const first = closing(new Viewer(h.client, a.id, 'VP8'));
    await first.start();
    const second = closing(new Viewer(h.client, b.id, 'VP8', { rejoin: false }));
    await expect(second.start()).rejects.toMatchObject({ reason: 'EXCEED-MAX-CONNECTIONS', rejoin: 'backoff' });
    await first.close();
  });

  test('CONNECTION-CREATED-WAIT-TIMEOUT-ERROR when the answer is too late for the server', async () => {
    h = await startHarness({ answerWaitTimeoutMs: 1 });
    const room = await h.client.createRoom();
    const v = closing(new Viewer(h.client, room.id, 'VP8', { rejoin: false }));
    await expect(v.start()).rejects.toMatchObject({ reason: 'CONNECTION-CREATED-WAIT-TIMEOUT-ERROR', rejoin: 'backoff' });
  });

  test('pongs keep the session alive; ignored pongs give PONG-TIMEOUT-ERROR and a rejoin', async () => {
    const pingIntervalMs = 50;
    const pongTimeoutMs = 2000;
    h = await startHarness({ pingIntervalMs, pongTimeoutMs });
    const room = await h.client.createRoom();
    const v = closing(new Viewer(h.client, room.id, 'VP8'));
    const reasons: string[] = [];
    v.session.on('rejoining', (r) => reasons.push(r.error.reason));
    let joins = 0;
    v.session.on('connected', (i) => (joins = i.joins));
    await v.start();
    const sessions = async (): Promise<{ client_id: string; pongs: number }[]> =>
      ((await h!.admin('sessions')) as { sessions: { client_id: string; pongs: number }[] }).sessions;
    const [first] = await sessions();
    // Pings come at most every 50 ms, so this many answered pings span more than a pong window: counted, not timed.
    const enough = Math.ceil((1.25 * pongTimeoutMs) / pingIntervalMs);
    for (let i = 0; i < 2000 && ((await sessions())[0]?.pongs ?? 0) < enough && reasons.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(reasons).toEqual([]);
    const [still] = await sessions();
    expect(still.client_id).toBe(first.client_id);
    expect(still.pongs).toBeGreaterThanOrEqual(enough);
    await h.admin('ignore-pongs', { enabled: true });
    await waitFor('pong timeout', () => reasons.length > 0, 20_000);
    expect(reasons[0]).toBe('PONG-TIMEOUT-ERROR');
    await h.admin('ignore-pongs', { enabled: false });
    const before = joins;
    await waitFor('rejoined', () => joins > before, 20_000);
  });

  test('a deleted room ends the session: the rejoin cannot get a ticket (404)', async () => {
    h = await startHarness();
    const room = await h.client.createRoom();
    const v = closing(new Viewer(h.client, room.id, 'VP8'));
    await v.start();
    const closed = closedWith(v.session);
    await h.client.deleteRoom(room.id);
    const err = await closed;
    expect(err).toMatchObject({ reason: 'TICKET-FAILED', rejoin: 'never' });
    expect(err?.message).toMatch(/404/);
  });
});
