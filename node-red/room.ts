import type { NodeAPI } from 'node-red';
import { InputError } from '../shared/errors';
import type { RoomState } from '../shared/streaming';
import { deletedResult, override, registerActionNode, type ActionContext, type ActionResult, type ServiceNodeDef } from './lib/action-node';

interface RoomDef extends ServiceNodeDef {
  operation?: string;
  roomId?: string;
  /** Filter of the list: 'all' or 'onair'. */
  state?: string;
}

const OPERATIONS = ['list', 'get', 'create', 'delete'] as const;
type Operation = (typeof OPERATIONS)[number];

/** Registers `vision-streaming-room`: list, get, create and delete rooms of the live streaming service. */
export = function register(RED: NodeAPI): void {
  registerActionNode<RoomDef>(RED, 'vision-streaming-room', 'working', (ctx) => run(ctx));
};

async function run({ def, msg, connection, signal }: ActionContext<RoomDef>): Promise<ActionResult> {
  const operation = override(msg, 'operation', def.operation || 'list');
  if (!OPERATIONS.includes(operation as Operation)) {
    throw new InputError('invalid_input', `operation must be one of ${OPERATIONS.join(', ')}; got ${JSON.stringify(String(operation)).slice(0, 40)}`, { field: 'operation', limit: OPERATIONS.join(' | ') });
  }
  const streaming = connection.streaming();
  const roomId = () => override(msg, 'roomId', def.roomId) as string;
  switch (operation as Operation) {
    case 'list': {
      const rooms = await streaming.listRooms(override(msg, 'state', def.state || 'all') as RoomState, { signal });
      return { payload: rooms, properties: { count: rooms.length }, status: `${rooms.length} room(s)` };
    }
    case 'get': {
      const room = await streaming.getRoom(roomId(), { signal });
      return { payload: room, properties: { roomId: room.id }, status: `up ${room.up_count} down ${room.down_count}` };
    }
    case 'create': {
      const room = await streaming.createRoom({ signal });
      return { payload: room, properties: { roomId: room.id }, status: 'created' };
    }
    case 'delete': {
      const id = roomId();
      await streaming.deleteRoom(id, { signal });
      return deletedResult('roomId', id);
    }
  }
}
