import type { NodeAPI } from 'node-red';
import { InputError } from '../shared/errors';
import { searchByFace, type FaceWho } from '../shared/history/face-search';
import { hostHistoryQuery, visitMedia, visitRow, type VisitRow } from '../shared/history/host-query';
import { personSearchQuery } from '../shared/history/person-search';
import type { HistoryPage, HistoryQuery, HistoryStore, MediaKind, VisitRecord } from '../shared/history/types';
import { optionalNumber, override, pickOperation, registerActionNode, type ActionContext, type ActionResult, type FlowMessage, type ServiceNodeDef } from './lib/action-node';
import { configHistory } from './lib/history';
import { imageFromValue } from './lib/image-input';
import { configPeople } from './lib/people';

/** Settings of the history node: each a default a message property of the same name overrides. */
interface HistoryDef extends ServiceNodeDef {
  operation?: string;
  person?: string;
  visitor?: string;
  stream?: string;
  kind?: string;
  since?: string;
  until?: string;
  limit?: string | number;
  /** The collection a face is searched in (msg.face). */
  collectionId?: string;
  threshold?: string | number;
  /** Whether rows carry their media files' bytes (msg.withMedia: true, or a list of kinds), beside their paths. */
  withMedia?: boolean;
}

const OPERATIONS = ['search', 'get', 'delete'] as const;
const MEDIA: readonly MediaKind[] = ['face', 'snapshot', 'clip'];

/** A row as the history node sends it: the visit, its media paths, and with "include files" their bytes. */
type HistoryRow = VisitRow & { media?: Partial<Record<MediaKind, Buffer>> };

/**
 * Registers `vision-streaming-history`: the visits the config node's watch nodes kept. Search by
 * person, visitor, stream, kind, time and face (msg.face: a photo or a watch event's face crop),
 * get or delete one visit by msg.visit_id. Rows go out in msg.payload; failures go to Catch nodes.
 */
export = function register(RED: NodeAPI): void {
  registerActionNode<HistoryDef>(RED, 'vision-streaming-history', 'searching', (ctx) => run(ctx));
};

async function run(ctx: ActionContext<HistoryDef>): Promise<ActionResult> {
  const { def, msg } = ctx;
  if (msg.operation !== undefined && msg.operation !== null && typeof msg.operation !== 'string') {
    throw new InputError('invalid_input', `msg.operation must be one of ${OPERATIONS.join(', ')} (a string)`, { field: 'operation', limit: OPERATIONS.join(' | ') });
  }
  const operation = pickOperation(msg, def.operation, 'search', OPERATIONS);
  const history = configHistory(ctx.RED, def.service);
  if (!history) throw new InputError('invalid_input', 'vision-streaming-history needs a vision-streaming-config node', { field: 'service', limit: 'a configured service' });
  const withMedia = mediaWanted(override(msg, 'withMedia', def.withMedia ?? false));
  switch (operation) {
    case 'search':
      return search(ctx, await history.store(), withMedia);
    case 'get': {
      const store = await history.store();
      const visitId = visitIdOf(msg);
      const visit = await store.get(visitId);
      if (!visit) throw new InputError('invalid_input', `the history has no visit ${visitId.slice(0, 80)}`, { field: 'visit_id', limit: 'a visit id of this history' });
      return { payload: await row(visit, store, withMedia), properties: { visit_id: visitId }, status: `visit of ${visit.name ?? visit.visitor_id ?? 'a stranger'}` };
    }
    case 'delete': {
      const store = await history.store();
      const visitId = visitIdOf(msg);
      const receipt = await store.deleteVisit(visitId);
      return { payload: { visit_id: visitId, ...receipt }, properties: { visit_id: visitId }, status: receipt.removed_visits ? 'deleted' : 'no such visit' };
    }
  }
}

async function search(ctx: ActionContext<HistoryDef>, store: HistoryStore, withMedia: readonly MediaKind[]): Promise<ActionResult> {
  const { def, msg } = ctx;
  const query = hostHistoryQuery({
    person: override(msg, 'person', def.person),
    visitor: override(msg, 'visitor', def.visitor),
    stream: override(msg, 'stream', def.stream),
    kind: override(msg, 'kind', def.kind),
    since: override(msg, 'since', def.since),
    until: override(msg, 'until', def.until),
    limit: override(msg, 'limit', def.limit),
    cursor: msg.cursor,
  });
  let identity: FaceWho | undefined;
  let page: HistoryPage;
  if (msg.face !== undefined && msg.face !== null && msg.face !== '') {
    const found = await byFace(ctx, store, msg.face, query);
    identity = found.who;
    page = found.page;
  } else page = await store.search(await withPeople(ctx, query));
  const rows = await Promise.all(page.visits.map((v) => row(v, store, withMedia)));
  const who = identity?.kind === 'person' ? `${identity.name}: ` : identity?.kind === 'visitor' ? 'visitor: ' : '';
  const status = identity?.kind === 'never_seen' ? 'never seen' : `${who}${rows.length} visit(s)${page.next ? ', more' : ''}`;
  return { payload: rows, properties: { count: rows.length, next: page.next, ...(identity ? { identity } : {}) }, status };
}

/**
 * Who the face in msg.face is, through the collection (msg.collectionId or the setting) and the
 * config's people, and their visits (the rest of the search kept: a day, a camera).
 */
async function byFace(ctx: ActionContext<HistoryDef>, store: HistoryStore, face: unknown, query: HistoryQuery): Promise<{ who: FaceWho; page: HistoryPage }> {
  const { def, msg } = ctx;
  const image = imageFromValue(face, 'msg.face', 'face');
  const collectionId = override(msg, 'collectionId', def.collectionId);
  if (typeof collectionId !== 'string' || collectionId.trim() === '') {
    throw new InputError('invalid_input', 'a search by face needs the collection the watch node compares with (setting or msg.collectionId)', { field: 'collectionId', limit: 'a collection id' });
  }
  if (query.person_id !== undefined || query.name !== undefined || query.visitor_id !== undefined) {
    throw new InputError('invalid_input', 'a search by face finds the person itself: leave person and visitor empty', { field: 'face', limit: 'a face, or a person or visitor' });
  }
  const id = collectionId.trim();
  const people = configPeople(ctx.RED, def.service);
  return searchByFace({
    vision: ctx.connection.vision(),
    collectionId: id,
    ...(people?.available ? { people: people.store(id) } : {}),
    history: store,
    image,
    threshold: optionalNumber(override(msg, 'threshold', def.threshold)),
    query,
    signal: ctx.signal,
  });
}

/**
 * A search by person with the config's people of the node's collection (msg.collectionId or the
 * setting): every visit of that person, as the stranger they were and under their faces alone too.
 * Without a collection or people, the search is as the visits carry the name or id.
 */
async function withPeople(ctx: ActionContext<HistoryDef>, query: HistoryQuery): Promise<HistoryQuery> {
  if (query.person_id === undefined && query.name === undefined) return query;
  const collectionId = override(ctx.msg, 'collectionId', ctx.def.collectionId);
  const people = configPeople(ctx.RED, ctx.def.service);
  if (typeof collectionId !== 'string' || collectionId.trim() === '' || !people?.available) return query;
  const id = collectionId.trim();
  return personSearchQuery(query, people.store(id), id);
}

async function row(visit: VisitRecord, store: HistoryStore, withMedia: readonly MediaKind[]): Promise<HistoryRow> {
  const out: HistoryRow = visitRow(visit, store);
  if (withMedia.length > 0) out.media = Object.fromEntries((await visitMedia(visit, store, withMedia)).map((m) => [m.kind, m.bytes]));
  return out;
}

/** The media kinds a message wants as bytes: true (all), false (none), or a list such as ['face'] (a page of faces without every clip). */
function mediaWanted(value: unknown): readonly MediaKind[] {
  if (value === true) return MEDIA;
  if (value === false) return [];
  if (Array.isArray(value) && value.length > 0 && value.every((k) => MEDIA.includes(k as MediaKind))) return value as MediaKind[];
  throw new InputError('invalid_input', `msg.withMedia must be true, false, or a list of ${MEDIA.join(', ')}`, { field: 'withMedia', limit: `a boolean or a list of ${MEDIA.join(' | ')}` });
}

/** The visit a get or delete names: msg.visit_id, else the visit_id of msg.payload (a row or a watch event). */
function visitIdOf(msg: FlowMessage): string {
  const payload = msg.payload as { visit_id?: unknown } | null | undefined;
  const value = msg.visit_id ?? (payload && typeof payload === 'object' && !Array.isArray(payload) ? payload.visit_id : undefined);
  if (typeof value !== 'string' || value.trim() === '') throw new InputError('invalid_input', 'get and delete need msg.visit_id (or a row or event with visit_id in msg.payload)', { field: 'visit_id', limit: 'a visit id' });
  return value.trim();
}
