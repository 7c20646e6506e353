import type { NodeAPI } from 'node-red';
import type { RoomState } from '../shared/streaming';
import { createdResult, deleteById, listResult, override, pickOperation, registerActionNode, type ActionContext, type ActionResult, type ServiceNodeDef } from './lib/action-node';

interface RoomDef extends ServiceNodeDef {
  operation?: string;
  roomId?: string;
  /** Filter of the list: 'all' or 'onair'. */
  state?: string;
}

const OPERATIONS = ['list', 'get', 'create', 'delete'] as const;

/** Registers `vision-streaming-room`: list, get, create and delete rooms of the live streaming service. */
export = function register(RED: NodeAPI): void {
  registerActionNode<RoomDef>(RED, 'vision-streaming-room', 'working', (ctx) => run(ctx));
};

async function run({ def, msg, connection, signal }: ActionContext<RoomDef>): Promise<ActionResult> {
  const operation = pickOperation(msg, def.operation, 'list', OPERATIONS);
  const streaming = connection.streaming();
  const roomId = () => override(msg, 'roomId', def.roomId) as string;
  switch (operation) {
    case 'list':
      return listResult(await streaming.listRooms(override(msg, 'state', def.state || 'all') as RoomState, { signal }), 'room');
    case 'get': {
      const room = await streaming.getRoom(roomId(), { signal });
      return { payload: room, properties: { roomId: room.id }, status: `up ${room.up_count} down ${room.down_count}` };
    }
    case 'create': {
      const room = await streaming.createRoom({ signal });
      return createdResult(room, 'roomId', room.id);
    }
    case 'delete':
      return deleteById('roomId', roomId(), (id) => streaming.deleteRoom(id, { signal }));
  }
}
