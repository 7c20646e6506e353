import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { Room, RoomState, TicketDirection } from '../../shared/streaming/types';
import { idParameter } from '../common/locators';
import type { StreamingApi } from '../../shared/streaming/streaming-api';

type Operation = (ctx: IExecuteFunctions, client: StreamingApi, i: number, signal?: AbortSignal) => Promise<IDataObject>;

const roomId = (ctx: IExecuteFunctions, i: number) => idParameter(ctx, 'roomId', i);

/** A room with camelCase names, as the other nodes of the package name things. */
function room(r: Room): IDataObject {
  return { roomId: r.id, upCount: r.up_count, downCount: r.down_count, createdAt: r.created_at };
}

/** One function per resource and operation; each reads its parameters and calls one core method. */
export const OPERATIONS: Record<string, Record<string, Operation>> = {
  room: {
    async create(_ctx, client, _i, signal) {
      return room(await client.createRoom({ signal }));
    },
    async delete(ctx, client, i, signal) {
      const id = roomId(ctx, i);
      await client.deleteRoom(id, { signal });
      return { deleted: true, roomId: id };
    },
    async get(ctx, client, i, signal) {
      return room(await client.getRoom(roomId(ctx, i), { signal }));
    },
    async getAll(ctx, client, i, signal) {
      const state = ctx.getNodeParameter('state', i, 'all') as RoomState;
      const rooms = await client.listRooms(state, { signal });
      return { state, count: rooms.length, rooms: rooms.map(room) };
    },
  },
  ticket: {
    async create(ctx, client, i, signal) {
      const id = roomId(ctx, i);
      const direction = ctx.getNodeParameter('direction', i, 'down') as TicketDirection;
      const ticket = await client.createTicket(id, direction, { signal });
      const json: IDataObject = { roomId: ticket.id, direction: ticket.direction, url: ticket.url };
      // The token grants access to the room: it leaves the node only when the user asked for it.
      if (ctx.getNodeParameter('includeAccessToken', i, false) === true) json.accessToken = ticket.access_token;
      return json;
    },
  },
};
