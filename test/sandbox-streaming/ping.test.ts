import { RawSignaling, connectMessage } from './support/signaling-client';
import { startStreamingFixture, type StreamingFixture } from './support/sandbox';

const PING_INTERVAL_MS = 50;
// Long enough for a pong to come back on a loaded machine; tests that need a session to stay up use it.
const PATIENT_PONG_TIMEOUT_MS = 2000;

describe('streaming sandbox: ping/pong and socket faults', () => {
  let fx: StreamingFixture;
  /** Short pong timeout, only for tests where nothing has to happen before the timeout. */
  let strict: StreamingFixture;

  beforeAll(async () => {
    fx = await startStreamingFixture({ pingIntervalMs: PING_INTERVAL_MS, pongTimeoutMs: PATIENT_PONG_TIMEOUT_MS, answerWaitTimeoutMs: 60_000 });
    strict = await startStreamingFixture({ pingIntervalMs: PING_INTERVAL_MS, pongTimeoutMs: 300, answerWaitTimeoutMs: 60_000 });
  });
  afterEach(async () => {
    await fx.reset();
    await strict.reset();
  });
  afterAll(async () => {
    await fx.stop();
    await strict.stop();
  });

  /** Opens a session up to the offer (no answer: the answer timeout is long in this suite). */
  async function offered(direction: 'up' | 'down' = 'down', roomId?: string, on: StreamingFixture = fx): Promise<{ ws: RawSignaling; roomId: string }> {
    const id = roomId ?? (await on.createRoom()).id;
    const ticket = await on.ticket(id, direction);
    const ws = await RawSignaling.open(ticket.url);
    ws.send(connectMessage(ticket));
    await ws.next('offer');
    return { ws, roomId: id };
  }

  /** Answers every ping with a pong until told to stop; returns how many pongs went out. */
  function keepAlive(ws: RawSignaling): { pongs: () => number; stop: () => void } {
    let pongs = 0;
    let running = true;
    const loop = async (): Promise<void> => {
      while (running) {
        try {
          await ws.next('ping');
        } catch {
          return;
        }
        if (!running) return;
        ws.send({ type: 'pong' });
        pongs++;
      }
    };
    void loop();
    return { pongs: () => pongs, stop: () => (running = false) };
  }

  test('the server pings after the offer, and a client that answers pongs stays connected', async () => {
    const { ws } = await offered();
    const alive = keepAlive(ws);
    try {
      // Pings come at most every 50 ms: this many answered ones span more than a pong window (counted, not timed).
      const enough = Math.ceil((1.25 * PATIENT_PONG_TIMEOUT_MS) / PING_INTERVAL_MS);
      for (let i = 0; i < 2000 && alive.pongs() < enough && ws.ws.readyState === ws.ws.OPEN; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(alive.pongs()).toBeGreaterThanOrEqual(enough);
      expect(ws.ws.readyState).toBe(ws.ws.OPEN);
    } finally {
      alive.stop();
      ws.terminate();
    }
  });

  test('a client that never answers pings is closed with PONG-TIMEOUT-ERROR', async () => {
    const { ws } = await offered('down', undefined, strict);
    try {
      expect(await ws.closed).toEqual({ code: 4408, reason: 'PONG-TIMEOUT-ERROR' });
      expect(ws.messages.filter((m) => m.type === 'ping').length).toBeGreaterThan(0);
    } finally {
      ws.terminate();
    }
  });

  test('ignore-pongs makes a healthy client time out with PONG-TIMEOUT-ERROR', async () => {
    const { ws } = await offered();
    const alive = keepAlive(ws);
    try {
      await fx.admin('ignore-pongs', { enabled: true });
      expect(await ws.closed).toEqual({ code: 4408, reason: 'PONG-TIMEOUT-ERROR' });
      expect(alive.pongs()).toBeGreaterThan(0);
    } finally {
      alive.stop();
      ws.terminate();
    }
  });

  test('stop-pings silences the server; the session then ends with PONG-TIMEOUT-ERROR', async () => {
    expect(await strict.admin('stop-pings', { enabled: true })).toEqual({ stopPings: true });
    const { ws } = await offered('down', undefined, strict);
    try {
      expect(await ws.closed).toEqual({ code: 4408, reason: 'PONG-TIMEOUT-ERROR' });
      expect(ws.messages.filter((m) => m.type === 'ping')).toEqual([]);
    } finally {
      ws.terminate();
    }
    expect(await strict.admin('stop-pings', { enabled: false })).toEqual({ stopPings: false });
  });

  test('drop-sockets cuts sessions without a close frame: all, by room, by count', async () => {
    const a = await offered('down');
    const b = await offered('down');
    const c = await offered('down', b.roomId);
    const sockets = [a.ws, b.ws, c.ws];
    const alive = sockets.map(keepAlive);
    try {
      expect(await fx.admin('drop-sockets', { room: a.roomId })).toEqual({ dropped: 1 });
      expect((await a.ws.closed).code).toBe(1006);
      expect(await fx.admin('drop-sockets', { count: 1 })).toEqual({ dropped: 1 });
      expect(await fx.admin('drop-sockets', {})).toEqual({ dropped: 1 });
      for (const { ws } of [b, c]) expect((await ws.closed).code).toBe(1006);
    } finally {
      for (const keeper of alive) keeper.stop();
      for (const ws of sockets) ws.terminate();
    }
  });

  test('restart-sfu closes every session with 1012 and keeps the rooms', async () => {
    const a = await offered('up');
    const b = await offered('down', a.roomId);
    const alive = [a.ws, b.ws].map(keepAlive);
    try {
      expect(await fx.admin('restart-sfu')).toEqual({ closed: 2 });
      for (const { ws } of [a, b]) expect((await ws.closed).code).toBe(1012);
      expect((await fx.call('GET', `/v1/rooms/${a.roomId}`)).status).toBe(200);
      const again = await offered('up', a.roomId);
      again.ws.terminate();
    } finally {
      for (const keeper of alive) keeper.stop();
      a.ws.terminate();
      b.ws.terminate();
    }
  });

  test('deleting a room ends its sessions normally', async () => {
    const { ws, roomId } = await offered('down');
    const alive = keepAlive(ws);
    try {
      expect((await fx.call('DELETE', `/v1/rooms/${roomId}`)).status).toBe(204);
      expect((await ws.closed).code).toBe(1000);
    } finally {
      alive.stop();
      ws.terminate();
    }
  });

  test('unknown admin actions answer 404', async () => {
    await expect(fx.admin('explode')).rejects.toThrow('404');
  });
});
