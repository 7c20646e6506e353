import configNode from '../../node-red/config';
import roomNode from '../../node-red/room';
import ticketNode from '../../node-red/ticket';
import type { RunningSandbox } from '../../sandbox';
import { configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, sandboxForTests, useNodeRedHelper } from './support/runtime';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await sandboxForTests();
});
afterAll(() => sandbox?.stop());
afterEach(() => sandbox.reset());
useNodeRedHelper();

/** A room node and a ticket node on one config, each wired to a helper, plus a Catch node. */
async function load(room: Record<string, unknown> = {}, ticket: Record<string, unknown> = {}): Promise<void> {
  await helper.load(
    [configNode, roomNode, ticketNode],
    [
      { id: 'f1', type: 'tab', label: 'test' },
      sandboxConfig(sandbox),
      { id: 'room', z: 'f1', type: 'vision-streaming-room', service: 'svc', operation: 'list', wires: [['roomOut']], ...room },
      { id: 'ticket', z: 'f1', type: 'vision-streaming-ticket', service: 'svc', wires: [['ticketOut']], ...ticket },
      { id: 'roomOut', z: 'f1', type: 'helper' },
      { id: 'ticketOut', z: 'f1', type: 'helper' },
      { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', z: 'f1', type: 'helper' },
    ],
    configCredentials(sandbox),
  );
}

async function room(msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = nextMessage('roomOut');
  inject('room', msg);
  return out;
}

it('creates, lists, reads and deletes a room; message properties pick the operation', async () => {
  await load();
  const created = await room({ operation: 'create' });
  const roomId = created.roomId as string;
  expect(created.payload).toMatchObject({ id: roomId, up_count: 0, down_count: 0 });

  expect(((await room({})).payload as { id: string }[]).map((r) => r.id)).toEqual([roomId]);
  expect((await room({ state: 'onair' })).payload).toEqual([]);
  expect((await room({ operation: 'get', roomId })).payload).toMatchObject({ id: roomId });
  expect((await room({ operation: 'delete', roomId })).payload).toEqual({ roomId, deleted: true });
  expect((await room({})).payload).toEqual([]);
});

it('a ticket carries the room, direction and signaling address but never its access token', async () => {
  await load({ operation: 'create' });
  const roomId = (await room({})).roomId as string;
  for (const direction of ['down', 'up']) {
    const out = nextMessage('ticketOut');
    inject('ticket', { roomId, direction });
    const msg = await out;
    expect(msg.payload).toEqual({ roomId, direction, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+/) });
    expect(Object.getOwnPropertyNames(msg.payload)).toEqual(['roomId', 'direction', 'url']);
    expect(JSON.stringify(msg)).not.toMatch(/access_token|accessToken/);
  }
});

it('an unknown room is a 404 at the Catch node; a bad state is refused before sending', async () => {
  await load({ operation: 'get', roomId: 'no-such-room' });
  let caught = nextMessage('caught');
  inject('room', {});
  let error = (await caught).error as { code: string; message: string; cause: Record<string, unknown> };
  expect(error.cause).toMatchObject({ status: 404, operation: 'getRoom' });
  expect(error.message).toContain('no-such-room');

  const before = sandbox.stats().requests;
  caught = nextMessage('caught');
  inject('room', { operation: 'list', state: 'sometimes' });
  error = (await caught).error as { code: string; message: string; cause: Record<string, unknown> };
  expect(error).toMatchObject({ code: 'invalid_input', cause: { field: 'state' } });
  caught = nextMessage('caught');
  inject('ticket', { roomId: 'x', direction: 'sideways' });
  error = (await caught).error as { code: string; message: string; cause: Record<string, unknown> };
  expect(error).toMatchObject({ code: 'invalid_input', cause: { field: 'direction' } });
  expect(sandbox.stats().requests).toBe(before);
});
