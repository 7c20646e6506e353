import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { ApiError, InputError } from '../../shared/errors';
import { HttpClient } from '../../shared/http';
import { STREAMING_SCOPES, TokenSource } from '../../shared/auth';
import { StreamingClient } from '../../shared/streaming';
import { startHarness, type StreamingHarness } from './support/harness';

let h: StreamingHarness;
const ROOM_LIMIT = 2;

beforeAll(async () => {
  h = await startHarness({}, ROOM_LIMIT);
});
afterAll(async () => {
  await h.stop();
});
beforeEach(async () => {
  await h.sandbox.reset();
  // The reset forgot every token: fetch a fresh one now so request counts below are exact.
  await h.client.listRooms();
});

function requests(): number {
  return h.sandbox.stats().requests;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('rooms', () => {
  test('create, get, list (all and onair), delete', async () => {
    const room = await h.client.createRoom();
    expect(room).toMatchObject({ up_count: 0, down_count: 0 });
    expect(typeof room.id).toBe('string');
    expect(Number.isNaN(Date.parse(room.created_at))).toBe(false);
    expect(await h.client.getRoom(room.id)).toEqual(room);
    expect((await h.client.listRooms()).map((r) => r.id)).toEqual([room.id]);
    expect((await h.client.listRooms('all')).map((r) => r.id)).toEqual([room.id]);
    // Nobody streams yet, so the room is not on air.
    expect(await h.client.listRooms('onair')).toEqual([]);
    await h.client.deleteRoom(room.id);
    expect(await h.client.listRooms()).toEqual([]);
  });

  test('an invalid state filter is refused before anything is sent', async () => {
    const before = requests();
    const err = await rejection(h.client.listRooms('live' as never));
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ field: 'state', limit: "'all' | 'onair'" });
    expect(requests()).toBe(before);
  });

  test('404 for a room that does not exist (get, delete, ticket), not retried', async () => {
    for (const call of [() => h.client.getRoom('nope'), () => h.client.deleteRoom('nope'), () => h.client.createTicket('nope')]) {
      const before = requests();
      const err = (await rejection(call())) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 404, retryable: false });
      expect(err.message).toContain('"nope" does not exist');
      expect(requests()).toBe(before + 1);
    }
  });

  test('429 is the room creation limit: reported as such, never retried, and lifted by a delete', async () => {
    const rooms = [];
    for (let i = 0; i < ROOM_LIMIT; i++) rooms.push(await h.client.createRoom());
    const before = requests();
    const err = (await rejection(h.client.createRoom())) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, retryable: false, operation: 'createRoom' });
    expect(err.message).toMatch(/room creation limit/);
    expect(requests()).toBe(before + 1);
    await h.client.deleteRoom(rooms[0].id);
    await expect(h.client.createRoom()).resolves.toMatchObject({ up_count: 0 });
  });

  test('any 429 of room creation is the limit, even one worded as throttling: sent once', async () => {
    h.sandbox.setFaults({ rooms: { tooManyRequests: 1 } });
    const before = requests();
    const err = (await rejection(h.client.createRoom())) as ApiError;
    expect(err).toMatchObject({ status: 429, retryable: false, operation: 'createRoom', code: 'room_limit' });
    expect(err.message).toMatch(/room creation limit/);
    expect(requests()).toBe(before + 1);
    // The same throttling answer on a read is retried per policy.
    const read = (await rejection(h.client.listRooms())) as ApiError;
    expect(read).toMatchObject({ status: 429, retryable: true });
    expect(requests() - before).toBe(1 + 3);
    h.sandbox.clearFaults();
  });

  test('500 on reads is retried per policy; room creation is not repeated after a 500', async () => {
    h.sandbox.setFaults({ rooms: { serverError: 1 } });
    let before = requests();
    const err = (await rejection(h.client.listRooms())) as ApiError;
    expect(err).toMatchObject({ status: 500, retryable: true });
    expect(requests() - before).toBe(3); // first try + 2 retries of the harness policy
    before = requests();
    const created = (await rejection(h.client.createRoom())) as ApiError;
    expect(created).toMatchObject({ status: 500 });
    expect(requests() - before).toBe(1);
    h.sandbox.clearFaults();
  });

  test('a transient 500 is absorbed by a retry', async () => {
    const room = await h.client.createRoom();
    const patient = new StreamingClient({
      authUrl: h.sandbox.url,
      sfuUrl: h.sandbox.url,
      clientId: 'sandbox-client',
      clientSecret: 'sandbox-secret',
      retry: { retries: 12, baseDelayMs: 1, maxDelayMs: 5 },
    });
    try {
      await patient.listRooms();
      h.sandbox.setFaults({ rooms: { serverError: 0.5, seed: 7 } });
      const before = requests();
      for (let i = 0; i < 5; i++) await expect(patient.getRoom(room.id)).resolves.toMatchObject({ id: room.id });
      // Some of the calls met a 500 and went through on a repeat.
      expect(requests() - before).toBeGreaterThan(5);
    } finally {
      h.sandbox.clearFaults();
      await patient.close();
    }
  });
});

describe('tickets', () => {
  test('down by default, up on request; the token is hidden from JSON and inspect', async () => {
    const room = await h.client.createRoom();
    const down = await h.client.createTicket(room.id);
    expect(down).toMatchObject({ id: room.id, direction: 'down' });
    expect(down.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    expect(typeof down.access_token).toBe('string');
    expect(down.access_token.length).toBeGreaterThan(8);
    const up = await h.client.createTicket(room.id, 'up');
    expect(up.direction).toBe('up');
    for (const t of [down, up]) {
      expect(JSON.stringify(t)).not.toContain(t.access_token);
      expect(inspect(t, { depth: 5 })).not.toContain(t.access_token);
      expect(Object.keys(t)).not.toContain('access_token');
    }
  });

  test('an invalid direction is refused before anything is sent', async () => {
    const room = await h.client.createRoom();
    const before = requests();
    const err = await rejection(h.client.createTicket(room.id, 'sideways' as never));
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ field: 'direction' });
    expect((err as Error).message).toMatch(/'up' or 'down'/);
    await expect(h.client.createTicket('a/b')).rejects.toMatchObject({ name: 'InputError', field: 'roomId' });
    expect(requests()).toBe(before);
  });

  test('400 from the service (reached with a lower-level call) maps to a non-retryable ApiError', async () => {
    const room = await h.client.createRoom();
    const tokens = new TokenSource({ authUrl: h.sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', scopes: STREAMING_SCOPES });
    const http400 = new HttpClient({ baseUrl: h.sandbox.url, tokens, sendApiKey: false, retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      const before = requests();
      const err = (await rejection(
        http400.request({ method: 'POST', path: `/v1/rooms/${room.id}/tickets`, json: { direction: 'sideways' }, operation: 'createTicket' }),
      )) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 400, retryable: false, operation: 'createTicket' });
      expect(requests() - before).toBeLessThanOrEqual(2); // token + one ticket request, no retry
    } finally {
      await http400.close();
      await tokens.close();
    }
  });
});

describe('authentication', () => {
  test('after every token expires (401) the client renews once and the call succeeds', async () => {
    const room = await h.client.createRoom();
    const issued = h.sandbox.stats().tokensIssued;
    h.sandbox.expireTokens();
    await expect(h.client.getRoom(room.id)).resolves.toMatchObject({ id: room.id });
    await expect(h.client.createTicket(room.id)).resolves.toMatchObject({ direction: 'down' });
    expect(h.sandbox.stats().tokensIssued).toBe(issued + 1);
  });

  test('wrong credentials give a typed error without the secret', async () => {
    const secret = 'definitely-wrong-secret-value';
    const bad = new StreamingClient({ authUrl: h.sandbox.url, sfuUrl: h.sandbox.url, clientId: 'sandbox-client', clientSecret: secret, retry: { retries: 0 } });
    try {
      const err = (await rejection(bad.listRooms())) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(401);
      expect(err.retryable).toBe(false);
      for (const text of [err.message, String(err.stack), JSON.stringify(err), inspect(err)]) expect(text).not.toContain(secret);
    } finally {
      await bad.close();
    }
  });
});

describe('wire format (captured by a local server)', () => {
  test('bearer only (no x-api-key), streaming scope, ticket POST as application/json', async () => {
    const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.setHeader('content-type', 'application/json; charset=utf-8');
        if (req.url === '/v1/token') {
          res.end(JSON.stringify({ access_token: 'tok-1', api_key: 'key-1', expires_in: 3600, token_type: 'Bearer' }));
        } else {
          res.end(JSON.stringify({ id: 'r1', access_token: 'ticket-secret', direction: 'up', url: 'ws://127.0.0.1:1/servers/r1' }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new StreamingClient({ authUrl: url, sfuUrl: url, clientId: 'id', clientSecret: 'secret' });
    try {
      await client.createTicket('r1', 'up');
      const token = seen.find((s) => s.url === '/v1/token');
      expect(decodeURIComponent(token?.body ?? '')).toContain('scope=sfu.api.ricoh/v1/sfu');
      const ticket = seen.find((s) => s.url === '/v1/rooms/r1/tickets');
      expect(ticket).toBeDefined();
      expect(ticket?.method).toBe('POST');
      expect(ticket?.headers.authorization).toBe('Bearer tok-1');
      expect(ticket?.headers['x-api-key']).toBeUndefined();
      expect(ticket?.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(ticket?.body ?? '')).toEqual({ direction: 'up' });
    } finally {
      await client.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
