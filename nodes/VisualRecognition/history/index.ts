import type { IBinaryData, IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { InputError } from '../../../shared/errors';
import { searchByFace } from '../../../shared/history/face-search';
import { hostHistoryQuery, visitMedia, visitRow } from '../../../shared/history/host-query';
import { personSearchQuery } from '../../../shared/history/person-search';
import type { HistoryPage, HistoryStore, MediaKind, VisitRecord } from '../../../shared/history/types';
import type { VisionApi } from '../../../shared/vision/vision-api';
import { HISTORY_CREDENTIAL, historyLocation, historyStoreParameter, useHistory } from '../../common/history';
import { idParameter, idParameters } from '../../common/locators';
import { operationParameter } from '../../common/parameters';
import { peopleStore, peopleTableParameter } from '../../common/people-table';
import type { OperationTable } from '../../common/per-item';
import type { OperationResult } from '../operations';
import { plain } from '../shape';

/** Shown for the History resource, with the given operations. */
const shownFor = (operations?: string[]) => ({ resource: ['history'], ...(operations ? { operation: operations } : {}) });

const MEDIA: readonly MediaKind[] = ['face', 'snapshot', 'clip'];

// An AI agent is shown a tool's action ("<action> in Visual Recognition", n8n's automatic tool
// description), not the operation's description: the action says what the tool reaches.
const OPERATION_OPTIONS: INodePropertyOptions[] = [
  {
    name: 'Delete',
    value: 'delete',
    action: 'Delete a visit from the history',
    description: 'Delete one visit and its face crop, snapshot and clip from the history',
  },
  {
    name: 'Get',
    value: 'get',
    action: 'Get a visit from the history',
    description: 'Get one visit of the history by its visit ID, with its media as binary data when asked',
  },
  {
    name: 'Search',
    value: 'search',
    action: 'Search the history of visits',
    description:
      'List the visits the Face Match Trigger kept, newest first: who came (person name, visitor or stranger), on which camera, when they arrived and left, for how long. Filter by person, time range (e.g. since "today" or "2d"), camera, kind, or by a face photo. Answers questions such as "was the courier here today?" (Person "courier", Since "today") or "who came while I was away?" (Since the day you left).',
  },
];

/** The History resource's parameters, in display order. */
export const HISTORY_PROPERTIES: INodeProperties[] = [
  operationParameter(shownFor(), OPERATION_OPTIONS, 'search'),
  historyStoreParameter(shownFor()),
  {
    displayName: 'Person',
    name: 'person',
    type: 'string',
    default: '',
    placeholder: 'e.g. courier',
    description: 'Only visits of this person: their name as kept in the people table (any case), or their person ID (p_…). Empty: everyone.',
    displayOptions: { show: shownFor(['search']) },
  },
  {
    displayName: 'Since',
    name: 'since',
    type: 'string',
    default: '',
    placeholder: 'e.g. today, 2d, 2026-11-28',
    description: 'Only visits that went on at or after this time: an ISO 8601 date or time, "today", or a time before now such as "30m", "12h", "2d", "1w". Empty: no lower bound.',
    displayOptions: { show: shownFor(['search']) },
  },
  {
    displayName: 'Until',
    name: 'until',
    type: 'string',
    default: '',
    placeholder: 'e.g. 2026-11-29',
    description: 'Only visits that began before this time (same forms as Since). Empty: until now.',
    displayOptions: { show: shownFor(['search']) },
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 1000 },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: shownFor(['search']) },
  },
  {
    displayName: 'Search By Face',
    name: 'searchByFace',
    type: 'boolean',
    default: false,
    description: 'Whether to find whose face a photo shows (compared with the collection once) and list their visits; a face never seen gives no visits and identity "never_seen"',
    displayOptions: { show: shownFor(['search']) },
  },
  {
    displayName: 'Face Binary Property',
    name: 'faceBinaryProperty',
    type: 'string',
    default: 'face',
    required: true,
    description: 'Binary property of the input item holding the photo (e.g. "face" of a Face Match Trigger event)',
    displayOptions: { show: { ...shownFor(['search']), searchByFace: [true] } },
  },
  ...idParameters({ name: 'collectionId', displayName: 'Collection ID', description: 'The face collection the Face Match Trigger compares with', show: { ...shownFor(['search']), searchByFace: [true] } }),
  {
    displayName: 'Use People Table',
    name: 'usePeopleTable',
    type: 'boolean',
    default: false,
    description:
      'Whether to find the person in the people of an n8n data table (as the trigger with Use People Table does): Search By Face names a face by them (without it, a face found is a visitor), and a search by Person gives every visit of theirs, those they made as a stranger before being named too',
    displayOptions: { show: shownFor(['search']) },
  },
  // The same collection for a search by Person with the people table (shown once either way).
  ...idParameters({ name: 'collectionId', displayName: 'Collection ID', description: 'The face collection of the people table', show: { ...shownFor(['search']), searchByFace: [false], usePeopleTable: [true] } }),
  peopleTableParameter({ ...shownFor(['search']), usePeopleTable: [true] }),
  {
    displayName: 'Visit ID',
    name: 'visitId',
    type: 'string',
    default: '',
    required: true,
    placeholder: '={{ $json.visitId }}',
    description: 'The visit, as a search or a Face Match Trigger event gives its visit ID',
    displayOptions: { show: shownFor(['get', 'delete']) },
  },
  {
    displayName: 'Include Media',
    name: 'includeMedia',
    type: 'boolean',
    default: false,
    description: "Whether the visit's face crop, snapshot and clip come as binary data (search: face_0, snapshot_0, clip_0 for the first visit, and so on); their file paths are always given",
    displayOptions: { show: shownFor(['search', 'get']) },
  },
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add filter',
    default: {},
    displayOptions: { show: shownFor(['search']) },
    options: [
      { displayName: 'Cursor', name: 'cursor', type: 'string', default: '', description: 'The "next" of the previous page, for the page after it' },
      {
        displayName: 'Kind',
        name: 'kind',
        type: 'options',
        default: 'person',
        options: [
          { name: 'Person', value: 'person', description: 'Someone of the people' },
          { name: 'Visitor', value: 'visitor', description: 'A stranger the trigger remembers (Remember Visitors)' },
          { name: 'Stranger', value: 'stranger', description: 'A face not remembered' },
        ],
        description: 'Only visits of this kind',
      },
      { displayName: 'Match Threshold', name: 'threshold', type: 'number', typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 }, default: 0.7, description: 'Search By Face: least score for the photo to be a face seen' },
      { displayName: 'Stream ID', name: 'streamId', type: 'string', default: '', description: "Only visits seen by this camera (its stream's client ID)" },
      { displayName: 'Visitor ID', name: 'visitorId', type: 'string', default: '', description: 'Only visits of this remembered visitor' },
    ],
  },
];

/** Parameter names behind the core's field names, for the History resource's error messages. */
export const HISTORY_LABELS: Record<string, string> = {
  person: 'Person',
  since: 'Since',
  until: 'Until',
  limit: 'Limit',
  kind: 'Filters > Kind',
  visitor: 'Filters > Visitor ID',
  stream: 'Filters > Stream ID',
  cursor: 'Filters > Cursor',
  threshold: 'Filters > Match Threshold',
  face: 'Face Binary Property',
  image: 'Face Binary Property',
  collectionId: 'Collection ID',
  peopleTable: 'People Table',
  visit_id: 'Visit ID',
  historyUrl: 'Connection URL (Vision Streaming History credential)',
  historyMedia: 'Media Folder (Vision Streaming History credential)',
  history: 'History Store',
};

/** The History resource's runs by operation. */
export const HISTORY_OPERATIONS: OperationTable<VisionApi, OperationResult>[string] = {
  async search(ctx, client, i, signal) {
    const filters = ctx.getNodeParameter('filters', i, {}) as Record<string, unknown>;
    const query = hostHistoryQuery({
      person: ctx.getNodeParameter('person', i, ''),
      since: ctx.getNodeParameter('since', i, ''),
      until: ctx.getNodeParameter('until', i, ''),
      limit: ctx.getNodeParameter('limit', i, 50),
      kind: filters.kind,
      stream: filters.streamId,
      visitor: filters.visitorId,
      cursor: filters.cursor,
    });
    const byFace = ctx.getNodeParameter('searchByFace', i, false) as boolean;
    let face: { image: Buffer; collectionId: string; people?: Awaited<ReturnType<typeof peopleStore>> } | undefined;
    if (byFace) {
      if (query.person_id !== undefined || query.name !== undefined || query.visitor_id !== undefined) {
        throw new InputError('invalid_input', 'Search By Face finds the person itself: leave Person and Visitor ID empty', { field: 'person', limit: 'a face, or a person' });
      }
      const property = String(ctx.getNodeParameter('faceBinaryProperty', i, 'face') ?? '').trim();
      if (!property) throw new InputError('invalid_input', 'Face Binary Property names no binary property', { field: 'face', limit: 'the name of a binary property of the input item' });
      ctx.helpers.assertBinaryData(i, property);
      const collectionId = idParameter(ctx, 'collectionId', i);
      const people = (ctx.getNodeParameter('usePeopleTable', i, false) as boolean) ? await peopleStore(ctx, i, collectionId) : undefined;
      face = { image: await ctx.helpers.getBinaryDataBuffer(i, property), collectionId, ...(people ? { people } : {}) };
    }
    // A person with the people table: every visit of theirs, as the stranger they were and under their faces too.
    let byPerson: { people: Awaited<ReturnType<typeof peopleStore>>; collectionId: string } | undefined;
    if (!byFace && (query.person_id !== undefined || query.name !== undefined) && (ctx.getNodeParameter('usePeopleTable', i, false) as boolean)) {
      const collectionId = idParameter(ctx, 'collectionId', i);
      byPerson = { people: await peopleStore(ctx, i, collectionId), collectionId };
    }
    const withMedia = ctx.getNodeParameter('includeMedia', i, false) as boolean;
    return useHistoryOf(ctx, i, async (store) => {
      let page: HistoryPage;
      let identity: IDataObject | undefined;
      if (face) {
        const found = await searchByFace({ vision: client, history: store, ...face, ...(filters.threshold !== undefined ? { threshold: filters.threshold as number } : {}), query, signal });
        identity = plain(found.who);
        page = found.page;
      } else page = await store.search(byPerson ? await personSearchQuery(query, byPerson.people, byPerson.collectionId) : query);
      const binary: Record<string, IBinaryData> = {};
      const visits: IDataObject[] = [];
      for (const [n, visit] of page.visits.entries()) {
        const names = withMedia ? await mediaBinaries(ctx, visit, store, (kind) => `${kind}_${n}`, binary) : {};
        visits.push({ ...(plain(visitRow(visit, store)) as IDataObject), ...names });
      }
      return { json: { count: visits.length, visits, ...(page.next ? { next: page.next } : {}), ...(identity ? { identity } : {}) }, ...(withMedia ? { binary } : {}) };
    });
  },
  async get(ctx, _client, i) {
    const visitId = visitIdParameter(ctx, i);
    const withMedia = ctx.getNodeParameter('includeMedia', i, false) as boolean;
    return useHistoryOf(ctx, i, async (store) => {
      const visit = await store.get(visitId);
      if (!visit) throw new InputError('invalid_input', `The history has no visit ${visitId.slice(0, 80)}`, { field: 'visit_id', limit: 'a visit ID of this history' });
      const binary: Record<string, IBinaryData> = {};
      const names = withMedia ? await mediaBinaries(ctx, visit, store, (kind) => kind, binary) : {};
      return { json: { ...(plain(visitRow(visit, store)) as IDataObject), ...names }, ...(withMedia ? { binary } : {}) };
    });
  },
  async delete(ctx, _client, i) {
    const visitId = visitIdParameter(ctx, i);
    return useHistoryOf(ctx, i, async (store) => ({ json: { visit_id: visitId, ...(await store.deleteVisit(visitId)) } }));
  },
};

/** Visual Recognition's parameters with the History resource added (its option, then its parameters). */
export function withHistory(properties: INodeProperties[]): INodeProperties[] {
  return [
    ...properties.map((p) => (p.name === 'resource' ? { ...p, options: [...(p.options as INodePropertyOptions[]), { name: 'History', value: 'history' }] } : p)),
    ...HISTORY_PROPERTIES,
  ];
}

/** The credential the History resource (and Person > Forget) needs when the history is on PostgreSQL. */
export const HISTORY_CREDENTIAL_ENTRY = { name: HISTORY_CREDENTIAL, required: true, testedBy: 'testHistoryCredential', displayOptions: { show: { historyStore: ['postgres'] } } };

async function useHistoryOf(ctx: IExecuteFunctions, i: number, use: (store: HistoryStore) => Promise<OperationResult>): Promise<OperationResult> {
  return (await useHistory(await historyLocation(ctx, i), use))!;
}

/** The visit's media as binary data under `name(kind)`; gives the names the row points to (face_binary, …). */
async function mediaBinaries(ctx: IExecuteFunctions, visit: VisitRecord, store: HistoryStore, name: (kind: MediaKind) => string, into: Record<string, IBinaryData>): Promise<IDataObject> {
  const names: IDataObject = {};
  for (const m of await visitMedia(visit, store, MEDIA)) {
    const key = name(m.kind);
    into[key] = await ctx.helpers.prepareBinaryData(m.bytes, m.ref.name.split('/').pop(), m.ref.mime);
    names[`${m.kind}_binary`] = key;
  }
  return names;
}

function visitIdParameter(ctx: IExecuteFunctions, i: number): string {
  const value = String(ctx.getNodeParameter('visitId', i, '') ?? '').trim();
  if (!value) throw new InputError('invalid_input', 'Visit ID is required', { field: 'visit_id', limit: 'a visit ID' });
  return value;
}
