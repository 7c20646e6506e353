import type { INodeProperties } from 'n8n-workflow';
import { idParameters } from '../common/locators';
import { operationParameter, resourceParameter } from '../common/parameters';

const resource = resourceParameter(
  [
    { name: 'Room', value: 'room' },
    { name: 'Ticket', value: 'ticket' },
  ],
  'room',
);

const operations: INodeProperties[] = [
  operationParameter(
    { resource: ['room'] },
    [
      { name: 'Create', value: 'create', action: 'Create a room' },
      { name: 'Delete', value: 'delete', action: 'Delete a room', description: 'Delete a room and end its streams' },
      { name: 'Get', value: 'get', action: 'Get a room' },
      { name: 'Get Many', value: 'getAll', action: 'Get many rooms', description: 'List all rooms, or only those streaming now' },
    ],
    'getAll',
  ),
  operationParameter(
    { resource: ['ticket'] },
    [{ name: 'Create', value: 'create', action: 'Create a ticket', description: 'Issue a ticket to broadcast to or view a room' }],
    'create',
  ),
];

const roomIdFor = (resource: string, operation: string[]): INodeProperties[] =>
  idParameters({ name: 'roomId', displayName: 'Room ID', description: 'The room', show: { resource: [resource], operation } });

const state: INodeProperties = {
  displayName: 'State',
  name: 'state',
  type: 'options',
  options: [
    { name: 'All', value: 'all', description: 'Every room' },
    { name: 'On Air', value: 'onair', description: 'Only rooms with a stream now' },
  ],
  default: 'all',
  displayOptions: { show: { resource: ['room'], operation: ['getAll'] } },
};

const direction: INodeProperties = {
  displayName: 'Direction',
  name: 'direction',
  type: 'options',
  options: [
    { name: 'Down (View)', value: 'down', description: 'Receive the streams of the room' },
    { name: 'Up (Broadcast)', value: 'up', description: 'Send a stream to the room' },
  ],
  default: 'down',
  displayOptions: { show: { resource: ['ticket'], operation: ['create'] } },
};

const includeToken: INodeProperties = {
  displayName: 'Include Access Token',
  name: 'includeAccessToken',
  type: 'boolean',
  default: false,
  description: 'Whether to output the ticket\'s access token. It grants access to the room: only turn this on when the next node hands it to a client, and do not store it.',
  displayOptions: { show: { resource: ['ticket'], operation: ['create'] } },
};

/** Every parameter of Live Streaming v1, in display order. */
export const properties: INodeProperties[] = [
  resource,
  ...operations,
  ...roomIdFor('room', ['get', 'delete']),
  ...roomIdFor('ticket', ['create']),
  state,
  direction,
  includeToken,
];
