import type { NodeAPI } from 'node-red';
import type { TicketDirection } from '../shared/streaming';
import { override, registerActionNode, type ServiceNodeDef } from './lib/action-node';

interface TicketDef extends ServiceNodeDef {
  roomId?: string;
  /** 'down' to view, 'up' to broadcast. */
  direction?: string;
}

/**
 * Registers `vision-streaming-ticket`: issues a ticket for a room. The ticket's access token is a
 * secret and never leaves the node: the message carries the room id, the direction and the
 * signaling address only.
 */
export = function register(RED: NodeAPI): void {
  registerActionNode<TicketDef>(RED, 'vision-streaming-ticket', 'issuing', async ({ def, msg, connection, signal }) => {
    const roomId = override(msg, 'roomId', def.roomId) as string;
    const direction = override(msg, 'direction', def.direction || 'down') as TicketDirection;
    const ticket = await connection.streaming().createTicket(roomId, direction, { signal });
    const payload = { roomId: ticket.id, direction: ticket.direction, url: ticket.url };
    return { payload, properties: { roomId: ticket.id }, status: `${ticket.direction} ticket` };
  });
};
