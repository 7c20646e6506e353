import { InputError } from '../shared/errors';
import type { RoomState, TicketDirection } from '../shared/streaming/types';
import { operationCommand } from './operation-command';

// The Live Streaming API's rooms and tickets from the shell, one core function each (StreamingApi's
// methods, as the n8n and Node-RED nodes call them). A room prints as the service gives it:
// {"id", "up_count", "down_count", "created_at"}.

/** `vision-streaming rooms ACTION`: rooms and tickets. */
export const roomsCommand = operationCommand({
  name: 'rooms',
  usage: 'ACTION [options]',
  about: [
    'The rooms of the Live Streaming API, and tickets to join them. A room prints as',
    '{"id", "up_count", "down_count", "created_at"} (the counts are updated by the service with a short delay).',
  ],
  flags: [
    { name: 'room', env: 'VS_ROOM', value: 'ID', help: 'the room (get, delete, ticket)' },
    { name: 'state', env: '', value: 'all|onair', help: 'list: every room (all, the default) or those streaming now (onair)' },
    { name: 'direction', env: '', value: 'up|down', help: 'ticket: down (default) to view, up to broadcast' },
    { name: 'access-token', env: '', help: "ticket: also print the ticket's access_token (a secret: whoever holds it joins the room)" },
    { name: 'id-only', env: '', help: 'create: print the new id alone, not JSON (for a shell variable)' },
  ],
  operations: {
    list: {
      summary: 'the rooms: {"rooms": [room]}',
      uses: ['state'],
      async prepare({ flags }) {
        const state = choice(flags.get('state') ?? 'all', 'state', ['all', 'onair']) as RoomState;
        return async (lease, signal) => ({ rooms: await lease.streaming().listRooms(state, { signal }) });
      },
    },
    get: {
      summary: 'one room: room',
      uses: ['room'],
      async prepare({ flags }) {
        const id = flags.required('room');
        return (lease, signal) => lease.streaming().getRoom(id, { signal });
      },
    },
    create: {
      summary: 'a new room: room (with --id-only its id alone)',
      uses: ['id-only'],
      async prepare({ flags }) {
        const idOnly = flags.on('id-only');
        return async (lease, signal) => {
          const room = await lease.streaming().createRoom({ signal });
          return idOnly ? room.id : room;
        };
      },
    },
    delete: {
      summary: 'deletes the room --room and ends its streams',
      uses: ['room'],
      async prepare({ flags }) {
        const id = flags.required('room');
        return async (lease, signal) => {
          await lease.streaming().deleteRoom(id, { signal });
          return { deleted: true, id };
        };
      },
    },
    ticket: {
      summary: 'a ticket to join --room: {"id", "direction", "url"} (the access_token only with --access-token)',
      uses: ['room', 'direction', 'access-token'],
      async prepare({ flags }) {
        const id = flags.required('room');
        const direction = choice(flags.get('direction') ?? 'down', 'direction', ['up', 'down']) as TicketDirection;
        const withToken = flags.on('access-token');
        return async (lease, signal) => {
          const ticket = await lease.streaming().createTicket(id, direction, { signal });
          // The token is not enumerable: it shows only when asked for, as the n8n node's option does.
          return withToken ? { ...ticket, access_token: ticket.access_token } : { ...ticket };
        };
      },
    },
  },
  examples: ['vision-streaming rooms create --id-only', 'vision-streaming rooms list --state onair', 'vision-streaming rooms ticket --room ROOM_ID --direction up'],
});

function choice(value: string, flag: string, allowed: readonly string[]): string {
  if (!allowed.includes(value)) throw new InputError('invalid_input', `--${flag} takes ${allowed.join(' or ')}, got ${JSON.stringify(value.slice(0, 20))}`, { field: flag, limit: allowed.join(' | ') });
  return value;
}
