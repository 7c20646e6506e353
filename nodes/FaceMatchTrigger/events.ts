import type { IDataObject, INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';
import type { ArrivedEvent, FaceQuality, LeftEvent, MatchEvent, PresentEntry, StatusEvent, UnknownEvent } from '../../shared/watch';

/** The watcher's events that start a workflow. */
export type ItemEvent = MatchEvent | UnknownEvent | ArrivedEvent | StatusEvent | LeftEvent;

/** An event of the watcher as one n8n item: flat camelCase JSON, the snapshot(s) and the face crop as binary JPEG. */
export async function eventItem(ctx: ITriggerFunctions, event: ItemEvent): Promise<INodeExecutionData> {
  if (event.event === 'status') return { json: statusJson(event) };
  if (event.event === 'left') return { json: leftJson(event) };
  const { left, top, right, bottom } = event.location;
  const json: IDataObject = {
    event: event.event,
    ...(event.event === 'arrived' ? { visitId: event.visit_id, kind: event.kind } : {}),
    ...(event.event === 'match' || (event.event === 'arrived' && event.face_id !== undefined) ? { faceId: event.face_id, label: event.label } : {}),
    ...((event.event === 'match' || event.event === 'arrived') && event.person_id !== undefined ? person(event) : {}),
    ...(event.event === 'arrived' && event.visitor_id !== undefined ? { visitorId: event.visitor_id } : {}),
    score: event.score,
    ...(event.event === 'unknown' && event.reason ? { reason: event.reason } : {}),
    ...(event.event === 'unknown' && event.closest ? { closest: { ...person(event.closest), score: event.closest.score } } : {}),
    ...(event.event === 'unknown' && event.visitor_id !== undefined ? { visitorId: event.visitor_id, firstVisit: event.first_visit, visits: event.visits } : {}),
    left,
    top,
    right,
    bottom,
    width: right - left,
    height: bottom - top,
    roomId: event.room,
    streamId: event.stream_id,
    ...(event.stream_label !== undefined ? { streamLabel: event.stream_label } : {}),
    track: event.track,
    quality: qualityJson(event.quality),
    time: event.time,
    latencyMs: event.latency_ms,
  };
  const stamp = event.time.replace(/[:.]/g, '-');
  const binary: INodeExecutionData['binary'] = {
    snapshot: await ctx.helpers.prepareBinaryData(event.snapshot, `${event.event}-${stamp}.jpg`, 'image/jpeg'),
    // Ready for Visual Recognition > Collection Face > Add (its Input Binary Field set to "face").
    face: await ctx.helpers.prepareBinaryData(event.face, `${event.event}-${stamp}-face.jpg`, 'image/jpeg'),
  };
  if (event.snapshot_boxes) binary.snapshotBoxes = await ctx.helpers.prepareBinaryData(event.snapshot_boxes, `${event.event}-${stamp}-boxes.jpg`, 'image/jpeg');
  return { json, binary };
}

/** With a people table: the person a face belongs to, and their name as the table has it now. */
function person(p: { person_id?: string; name?: string }): IDataObject {
  return { personId: p.person_id, personName: p.name ?? null };
}

function qualityJson(q: FaceQuality): IDataObject {
  return { facePx: q.face_px, sharpness: q.sharpness, brightness: q.brightness, greyscale: q.greyscale, direction: q.direction };
}

function leftJson(event: LeftEvent): IDataObject {
  return {
    event: 'left',
    visitId: event.visit_id,
    kind: event.kind,
    reason: event.reason,
    ...(event.face_id !== undefined ? { faceId: event.face_id } : {}),
    ...(event.person_id !== undefined ? person(event) : {}),
    ...(event.visitor_id !== undefined ? { visitorId: event.visitor_id } : {}),
    ...(event.track !== undefined ? { track: event.track } : {}),
    label: event.label,
    roomId: event.room,
    streamId: event.stream_id,
    arrivedAt: event.arrived_at,
    leftAt: event.left_at,
    durationS: event.duration_s,
    time: event.time,
  };
}

function statusJson(event: StatusEvent): IDataObject {
  return {
    event: 'status',
    state: event.state,
    roomId: event.room,
    counts: { ...event.counts },
    ...(event.decoder ? { decoder: event.decoder } : {}),
    ...(event.missing_streams ? { missingStreams: [...event.missing_streams] } : {}),
    ...(event.detail ? { detail: event.detail } : {}),
    present: event.present.map(presentJson),
    time: event.time,
  };
}

function presentJson(p: PresentEntry): IDataObject {
  return {
    visitId: p.visit_id,
    kind: p.kind,
    ...(p.face_id !== undefined ? { faceId: p.face_id } : {}),
    ...(p.person_id !== undefined ? person(p) : {}),
    ...(p.visitor_id !== undefined ? { visitorId: p.visitor_id } : {}),
    ...(p.track !== undefined ? { track: p.track } : {}),
    label: p.label,
    streamId: p.stream_id,
    since: p.since,
    lastSeen: p.last_seen,
  };
}
