import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { WATCH_OPTIONS, type OptionSpec } from '../../shared/watch/option-table';
import { idParameters } from '../common/locators';
import { historyStoreParameter } from '../common/history';
import { peopleTableParameter } from '../common/people-table';
import { n8nPlacement } from './placement';

/** The watcher options the trigger shows at the top level, and those under Options, in the table's order. */
const MAIN: readonly OptionSpec[] = WATCH_OPTIONS.filter((o) => n8nPlacement(o.name) === 'main');
const MORE: readonly OptionSpec[] = WATCH_OPTIONS.filter((o) => n8nPlacement(o.name) === 'options');
const CLIP: readonly OptionSpec[] = WATCH_OPTIONS.filter((o) => n8nPlacement(o.name) === 'clips');

/** Shown only once Clips is on. */
const WITH_CLIPS = { show: { clips: [true] } };

/** The events that can start the workflow (errors go to n8n's failed executions instead). */
const EVENT_CHOICES = WATCH_OPTIONS.find((o) => o.name === 'events')!.choices.filter((c) => c.value !== 'error');

/** Every parameter of Face Match Trigger v1, in display order. */
export const properties: INodeProperties[] = [
  {
    displayName:
      'Cameras get into the room with the command line, kept running beside n8n: <code>vision-streaming publish --room ID --source rtsp://…</code>. See <a href="https://www.npmjs.com/package/n8n-nodes-vision-streaming#bring-your-camera" target="_blank">Bring your camera</a>.',
    name: 'cameraNotice',
    type: 'notice',
    default: '',
  },
  ...idParameters({ name: 'roomId', displayName: 'Room ID', description: 'Live streaming room to watch (the cameras publish into it)' }),
  ...idParameters({ name: 'collectionId', displayName: 'Collection ID', description: 'Face collection holding the known faces' }),
  {
    displayName: 'Use People Table',
    name: 'usePeopleTable',
    type: 'boolean',
    default: false,
    description: "Whether faces are named by the people of an n8n data table (kept by Visual Recognition's Person operations): a face of a person is that person, and a change of the table applies within seconds",
  },
  peopleTableParameter({ usePeopleTable: [true] }),
  {
    displayName: 'Events',
    name: 'events',
    type: 'multiOptions',
    options: EVENT_CHOICES.map((c) => ({ name: c.name, value: c.value, description: c.help })),
    // A workflow per unknown face or status change is opt-in: the usual alert is "a known face came".
    default: ['match'],
    required: true,
    description: 'Which events start the workflow',
  },
  ...MAIN.map(property),
  {
    displayName: 'Clips',
    name: 'clips',
    type: 'boolean',
    default: false,
    description:
      "Whether each visit's clip (the seconds before the face appeared and after it was last seen, as the camera sent them: WebM for VP8 and VP9, MP4 for H.264) starts the workflow too, as an item with the video in the binary property clip",
  },
  {
    displayName: 'Clips Folder',
    name: 'clipsFolder',
    type: 'string',
    default: '',
    placeholder: 'e.g. /home/node/clips',
    description: "Folder the clips are written to (created 0700; it must be n8n's user's and writable by no one else). Empty: the folder clips in n8n's .n8n folder.",
    displayOptions: WITH_CLIPS,
  },
  ...CLIP.map((o) => ({ ...property(o), displayOptions: WITH_CLIPS })),
  {
    displayName: 'Keep Clip Files',
    name: 'keepClipFiles',
    type: 'boolean',
    default: false,
    description: "Whether each clip's file stays in the folder once its item holds the video; off, it is deleted then (n8n keeps the binary data of executions it saves)",
    displayOptions: WITH_CLIPS,
  },
  {
    displayName: 'Keep History',
    name: 'keepHistory',
    type: 'boolean',
    default: false,
    description:
      "Whether every visit is kept (who, which camera, when they arrived and left, the face crop, the snapshot and with Clips the clip), written as it goes, for Visual Recognition > History to search and Person > Forget to erase",
  },
  historyStoreParameter({ keepHistory: [true] }),
  {
    displayName: 'Keep Visits For (Days)',
    name: 'historyDays',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 36500 },
    default: 30,
    description: 'Visits older than this go, with their media (a sweep at activation and every hour)',
    displayOptions: { show: { keepHistory: [true] } },
  },
  {
    displayName: 'Max History Media (GB)',
    name: 'historyMediaGB',
    type: 'number',
    typeOptions: { minValue: 0.01, numberPrecision: 2 },
    default: 2,
    description: "The history's face crops, snapshots and clips take at most this much; the oldest go first (the visits stay, without them)",
    displayOptions: { show: { keepHistory: [true] } },
  },
  {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add option',
    default: {},
    // n8n lists a collection's options alphabetically.
    options: MORE.map(property).sort((a, b) => a.displayName.localeCompare(b.displayName)),
  },
  {
    displayName:
      'A dropped connection is rejoined by the trigger itself. A room lost for good (deleted, or a fault rejoining cannot fix) fails the trigger with the error: n8n runs the Error Workflow, takes the trigger down and activates it again with backoff (how many times depends on the n8n version); once the room is back, the trigger watches again.',
    name: 'lostRoomNotice',
    type: 'notice',
    default: '',
  },
];

/** Where each watcher option sits in the node's parameters, for error messages ("Options > Streams"). */
export const PARAMETER_LABELS: Record<string, string> = {
  roomId: 'Room ID',
  collectionId: 'Collection ID',
  peopleTable: 'People Table',
  baseUrl: 'Base URL (n8n API credential)',
  events: 'Events',
  clips: 'Clips Folder',
  history: 'History Store',
  historyUrl: 'Connection URL (Vision Streaming History credential)',
  historyMedia: 'Media Folder (Vision Streaming History credential)',
  maxAgeDays: 'Keep Visits For (Days)',
  maxMediaBytes: 'Max History Media (GB)',
  ...Object.fromEntries([...MAIN, ...CLIP].map((o) => [o.name, o.label])),
  ...Object.fromEntries(MORE.map((o) => [o.name, `Options > ${o.label}`])),
};

/** One n8n parameter for one option of the table. */
function property(o: OptionSpec): INodeProperties {
  const base = { displayName: o.label, name: o.name, description: o.help };
  switch (o.kind) {
    case 'number':
    case 'integer':
      return {
        ...base,
        type: 'number',
        typeOptions: {
          ...(o.min !== undefined ? { minValue: o.min } : {}),
          ...(o.max !== undefined ? { maxValue: o.max } : {}),
          ...(o.precision !== undefined ? { numberPrecision: o.precision } : {}),
        },
        default: o.default as number,
      };
    case 'boolean':
      return { ...base, type: 'boolean', default: o.default === true };
    case 'choice':
      return { ...base, type: 'options', options: choices(o), default: o.default as string };
    case 'list':
      // A list of set choices is picked from them (Clip On); a free list is comma-separated text.
      if (o.choices) return { ...base, type: 'multiOptions', options: choices(o), default: [...((o.default as readonly string[] | undefined) ?? [])] };
      return { ...base, type: 'string', default: '', placeholder: 'e.g. door-camera, garage-camera' };
    case 'labels':
      return {
        ...base,
        type: 'fixedCollection',
        typeOptions: { multipleValues: true },
        placeholder: 'Add label',
        default: {},
        options: [
          {
            displayName: 'Label',
            name: 'label',
            values: [
              { displayName: 'ID', name: 'id', type: 'string', default: '', description: "A face ID of the collection, or a stream ID (the publisher's client ID)" },
              { displayName: 'Name', name: 'name', type: 'string', default: '' },
            ],
          },
        ],
      };
  }
}

function choices(o: OptionSpec): INodePropertyOptions[] {
  return (o.choices ?? []).map((c) => ({ name: c.name, value: c.value, ...(c.help ? { description: c.help } : {}) }));
}
