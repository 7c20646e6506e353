import { fetchToken, startStreamingFixture, eventually, type StreamingFixture } from './support/sandbox';

const JSON_UTF8 = 'application/json; charset=utf-8';

describe('streaming sandbox: rooms and tickets REST', () => {
  let fx: StreamingFixture;

  beforeAll(async () => {
    fx = await startStreamingFixture({ roomLimit: 3 });
  });
  afterAll(async () => {
    await fx.stop();
  });
  afterEach(async () => {
    await fx.reset();
  });

  test('POST /v1/rooms creates an empty room with an ISO 8601 UTC creation time', async () => {
    const reply = await fx.call('POST', '/v1/rooms');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe(JSON_UTF8);
    const room = reply.json() as Record<string, unknown>;
    expect(Object.keys(room).sort()).toEqual(['created_at', 'down_count', 'id', 'up_count']);
    expect(room).toMatchObject({ up_count: 0, down_count: 0 });
    expect(typeof room.id).toBe('string');
    expect(room.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  test('GET /v1/rooms lists every room; state=all is the default; a bad state is 400', async () => {
    const a = await fx.createRoom();
    const b = await fx.createRoom();
    for (const path of ['/v1/rooms', '/v1/rooms?state=all']) {
      const reply = await fx.call('GET', path);
      expect(reply.status).toBe(200);
      expect(reply.contentType).toBe(JSON_UTF8);
      const ids = (reply.json() as { rooms: { id: string }[] }).rooms.map((r) => r.id).sort();
      expect(ids).toEqual([a.id, b.id].sort());
    }
    const onair = await fx.call('GET', '/v1/rooms?state=onair');
    expect(onair.status).toBe(200);
    expect(onair.json()).toEqual({ rooms: [] });
    const bad = await fx.call('GET', '/v1/rooms?state=live');
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_parameter' } });
    expect(bad.text).toContain('state');
  });

  test('GET /v1/rooms/{id} returns the room, 404 for an unknown id', async () => {
    const room = await fx.createRoom();
    const got = await fx.call('GET', `/v1/rooms/${room.id}`);
    expect(got.status).toBe(200);
    expect(got.json()).toEqual(room);
    const missing = await fx.call('GET', '/v1/rooms/no-such-room');
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ error: { code: 'resource_not_found', message: 'The specified resource does not exist.' } });
  });

  test('a room id with a malformed escape names no room: 404, not a server error', async () => {
    for (const [method, path] of [
      ['GET', '/v1/rooms/%E0%A4%A'],
      ['DELETE', '/v1/rooms/abc%'],
      ['POST', '/v1/rooms/%zz/tickets'],
    ]) {
      const reply = await fx.call(method, path, method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {});
      expect({ method, path, status: reply.status, body: reply.json() }).toEqual({
        method,
        path,
        status: 404,
        body: { error: { code: 'resource_not_found', message: 'The specified resource does not exist.' } },
      });
    }
  });

  test('DELETE /v1/rooms/{id} answers 204 with no body, then 404', async () => {
    const room = await fx.createRoom();
    const deleted = await fx.call('DELETE', `/v1/rooms/${room.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await fx.call('GET', `/v1/rooms/${room.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/v1/rooms/${room.id}`)).status).toBe(404);
  });

  test('the room creation limit answers 429 until a room is deleted', async () => {
    const rooms = [await fx.createRoom(), await fx.createRoom(), await fx.createRoom()];
    const refused = await fx.call('POST', '/v1/rooms');
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'limit_exceeded' } });
    expect((await fx.call('DELETE', `/v1/rooms/${rooms[0].id}`)).status).toBe(204);
    expect((await fx.call('POST', '/v1/rooms')).status).toBe(200);
  });

  test('every endpoint answers 401 without a token, with a bad token, and with an expired one', async () => {
    const room = await fx.createRoom();
    const calls: [string, string][] = [
      ['GET', '/v1/rooms'],
      ['POST', '/v1/rooms'],
      ['GET', `/v1/rooms/${room.id}`],
      ['DELETE', `/v1/rooms/${room.id}`],
      ['POST', `/v1/rooms/${room.id}/tickets`],
    ];
    for (const [method, path] of calls) {
      const headers = { 'content-type': 'application/json' };
      expect((await fx.call(method, path, { token: null, headers, body: method === 'POST' ? '{}' : undefined })).status).toBe(401);
      expect((await fx.call(method, path, { token: 'not-a-token', headers, body: method === 'POST' ? '{}' : undefined })).status).toBe(401);
    }
    fx.sandbox.expireTokens();
    expect((await fx.call('GET', '/v1/rooms')).status).toBe(401);
  });

  test('a token issued for the vision scopes only is refused with 401', async () => {
    const visionOnly = await fetchToken(fx.sandbox.url, 'ips.api.ricoh/v1/detect_faces');
    expect((await fx.call('GET', '/v1/rooms', { token: visionOnly })).status).toBe(401);
  });

  test('POST tickets: up and down tickets, default down, ws URL of the room', async () => {
    const room = await fx.createRoom();
    const up = await fx.ticket(room.id, 'up');
    expect(Object.keys(up).sort()).toEqual(['access_token', 'direction', 'id', 'url']);
    expect(up).toMatchObject({ id: room.id, direction: 'up', url: `${fx.sandbox.url.replace('http:', 'ws:')}/servers/${room.id}` });
    expect(up.access_token.length).toBeGreaterThanOrEqual(32);
    const down = await fx.ticket(room.id, 'down');
    expect(down.direction).toBe('down');
    expect(down.access_token).not.toBe(up.access_token);

    for (const body of ['{}', '']) {
      const reply = await fx.call('POST', `/v1/rooms/${room.id}/tickets`, { body, headers: { 'content-type': 'application/json' } });
      expect(reply.status).toBe(200);
      expect(reply.contentType).toBe(JSON_UTF8);
      expect(reply.json()).toMatchObject({ direction: 'down' });
    }
  });

  test('POST tickets: 400 for a bad direction, bad JSON, or a missing JSON content type; 404 for an unknown room', async () => {
    const room = await fx.createRoom();
    const path = `/v1/rooms/${room.id}/tickets`;
    const json = { 'content-type': 'application/json' };
    const badDirection = await fx.call('POST', path, { body: '{"direction":"sideways"}', headers: json });
    expect(badDirection.status).toBe(400);
    expect(badDirection.text).toContain('direction');
    expect((await fx.call('POST', path, { body: '{"direction":', headers: json })).status).toBe(400);
    expect((await fx.call('POST', path, { body: '["up"]', headers: json })).status).toBe(400);
    const noType = await fx.call('POST', path, { body: '{"direction":"up"}' });
    expect(noType.status).toBe(400);
    expect(noType.text).toContain('Content-Type');
    const textType = await fx.call('POST', path, { body: '{"direction":"up"}', headers: { 'content-type': 'text/plain' } });
    expect(textType.status).toBe(400);
    const charset = await fx.call('POST', path, { body: '{"direction":"up"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(charset.status).toBe(200);
    const unknown = await fx.call('POST', '/v1/rooms/no-such-room/tickets', { body: '{"direction":"up"}', headers: json });
    expect(unknown.status).toBe(404);
  });

  test('injected faults reach the rooms and tickets endpoints', async () => {
    const room = await fx.createRoom();
    fx.sandbox.setFaults({ rooms: { serverError: 1 } });
    expect((await fx.call('GET', '/v1/rooms')).status).toBe(500);
    fx.sandbox.setFaults({ tickets: { serverError: 1 } });
    expect((await fx.call('GET', '/v1/rooms')).status).toBe(200);
    const ticket = await fx.call('POST', `/v1/rooms/${room.id}/tickets`, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(ticket.status).toBe(500);
    fx.sandbox.clearFaults();
  });

  test('requests are counted under the rooms and tickets endpoint names', async () => {
    const before = fx.sandbox.stats();
    const room = await fx.createRoom();
    await fx.ticket(room.id, 'down');
    const after = await eventually(async () => fx.sandbox.stats(), (s) => s.requests >= before.requests + 2);
    expect(after.byEndpoint.rooms ?? 0).toBe((before.byEndpoint.rooms ?? 0) + 1);
    expect(after.byEndpoint.tickets ?? 0).toBe((before.byEndpoint.tickets ?? 0) + 1);
  });
});
