import type { INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';
import { watchMessage } from '../../node-red/lib/watch-messages';
import { eventItem } from '../../nodes/FaceMatchTrigger/events';
import { ClientError } from '../../shared/errors';
import { EVENT_FIELDS, fieldList, type ArrivedEvent, type LeftEvent, type MatchEvent, type PresentEntry, type PreRollEntry, type StatusEvent, type UnknownEvent, type VisitKind, type VisitOf } from '../../shared/watch';
import { HOST_EVENTS, itemRenames, type HostEvent } from '../../shared/watch/event-json';

// Every field of every event the hosts hand on must reach the n8n item (under its camelCase name,
// its rename, or as a binary) and the Node-RED message (payload as the core has it, pictures on
// msg). The events carry every field, optional ones too, each with its own value, so a field the
// mapping drops, or a value put under another field's name, is named here.

let n = 0;
/** A string no other field of the fixtures has. */
const text = (what: string): string => `${what}-${++n}`;
/** A number no other field of the fixtures has. */
const num = (): number => ++n + 0.25;
const jpeg = (what: string): Buffer => Buffer.from(`\xff\xd8${text(what)}`, 'latin1');

function faceFields(): Omit<Required<MatchEvent>, 'event' | 'face_id' | 'person_id' | 'name' | 'label' | 'score'> {
  return {
    location: { left: num(), top: num(), right: num() + 100, bottom: num() + 100 },
    room: text('room'),
    stream_id: text('stream'),
    stream_label: text('door'),
    track: num(),
    time: '2026-11-27T03:50:17.123Z',
    snapshot: jpeg('snapshot'),
    face: jpeg('face'),
    snapshot_boxes: jpeg('boxes'),
    quality: { face_px: num(), sharpness: num(), brightness: num(), greyscale: true, direction: 'front' },
    latency_ms: num(),
    timing_ms: { decode: num(), snapshot: num(), detect: num(), crop: num(), compare: num() },
  };
}

/** Who a visit is of, every field set (arrived, left and present entries carry them). */
function visitOf(kind: VisitKind): Required<VisitOf> {
  return { visit_id: text('visit'), kind, face_id: text('face'), person_id: text('person'), name: text('Eileen'), visitor_id: text('visitor'), label: text('label') };
}

function presentEntry(): Required<PresentEntry> {
  return {
    ...visitOf('person'),
    track: num(),
    stream_id: text('stream'),
    since: text('since'),
    last_seen: text('seen'),
  };
}

/** A stream's pre-roll in a status event. */
function preRollEntry(): Required<PreRollEntry> {
  return { stream_id: text('stream'), frames: num(), bytes: num(), seconds: num(), max_bytes: num(), dropped_frames: num() };
}

/** One event of each kind the hosts hand on, every field set; Required<> makes the compiler refuse one that lacks an optional field. */
function fixtures(): Record<HostEvent['event'], HostEvent> {
  const match: Required<MatchEvent> = { event: 'match', face_id: text('face'), person_id: text('person'), name: text('Eileen'), label: text('label'), score: num(), ...faceFields() };
  const unknown: Required<UnknownEvent> = {
    event: 'unknown',
    score: num(),
    reason: 'not_person',
    closest: { person_id: text('person'), name: text('Anna'), score: num() },
    visitor_id: text('visitor'),
    first_visit: true,
    visits: num(),
    ...faceFields(),
  };
  const arrived: Required<ArrivedEvent> = {
    event: 'arrived',
    ...visitOf('person'),
    score: num(),
    arrived_at: text('arrived'),
    ...faceFields(),
  };
  const left: Required<LeftEvent> = {
    event: 'left',
    ...visitOf('visitor'),
    reason: 'not_seen',
    track: num(),
    room: text('room'),
    stream_id: text('stream'),
    arrived_at: text('arrived'),
    left_at: text('left'),
    duration_s: num(),
    time: text('time'),
  };
  const status: Required<StatusEvent> = {
    event: 'status',
    state: 'stopped',
    room: text('room'),
    counts: { streams: num(), frames: num(), samples: num(), analysed: num(), matches: num(), unknowns: num(), api_calls: num() },
    decoder: text('decoder'),
    missing_streams: [text('stream'), text('stream')],
    publishers_in_other_codecs: num(),
    detail: text('detail'),
    reason: 'session_lost',
    error: new ClientError(text('code'), text('message'), { retryable: true, status: 503 }),
    present: [presentEntry(), presentEntry()],
    pre_roll: [preRollEntry(), preRollEntry()],
    history: { written: num(), dropped: num(), queued: num(), last_error: text('code'), last_sweep: { removed_visits: num(), removed_media: num(), removed_media_for_size: num(), freed_bytes: num(), time: text('time') } },
    time: text('time'),
  };
  return { match, unknown, arrived, left, status };
}

/** What n8n's prepareBinaryData gives back, enough to find the picture again by its bytes. */
const fakeTrigger = {
  helpers: { prepareBinaryData: async (data: Buffer, fileName?: string, mimeType?: string) => ({ data: data.toString('base64'), fileName, mimeType }) },
} as unknown as ITriggerFunctions;

/** The rule, written again here so the mapping is checked against it rather than against itself. */
const ruleName = (field: string): string => field.replace(/_([a-z0-9])/g, (_w, c: string) => c.toUpperCase());
const renames = new Map(itemRenames().map((r) => [r.field, r.names]));
const namesOf = (field: string): readonly string[] => renames.get(field) ?? [ruleName(field)];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a core value does not reach the item's value: one line per field, naming its path. */
function missesInItem(core: unknown, item: unknown, path: string): string[] {
  if (isObject(core) && typeof core.toJSON === 'function') {
    // An error is its own JSON view in the item.
    return JSON.stringify(item) === JSON.stringify(core) ? [] : [`${path}: ${JSON.stringify(item)} is not the error's JSON view`];
  }
  if (Array.isArray(core)) {
    if (!Array.isArray(item) || item.length !== core.length) return [`${path}: not the same list in the n8n item`];
    return core.flatMap((c, i) => missesInItem(c, item[i], `${path}[${i}]`));
  }
  if (isObject(core)) {
    if (!isObject(item)) return [`${path}: not an object in the n8n item`];
    return Object.entries(core).flatMap(([key, value]) => fieldMisses(value, key, item, `${path}.${key}`));
  }
  return Object.is(core, item) ? [] : [`${path}: ${JSON.stringify(core)} arrived as ${JSON.stringify(item)}`];
}

/** Where one field of a core object does not reach its n8n holder: under its one name, or spread over several (a box). */
function fieldMisses(value: unknown, field: string, holder: Record<string, unknown>, path: string): string[] {
  if (value === undefined) return [];
  const names = namesOf(field);
  if (names.length === 1) return names[0] in holder ? missesInItem(value, holder[names[0]], path) : [`${path}: not in the n8n item (looked under ${names[0]})`];
  if (!isObject(value)) return [`${path}: spread over ${names.join(', ')} but not an object`];
  return Object.entries(value).flatMap(([k, v]) => (names.includes(k) ? fieldMisses(v, k, holder, `${path}.${k}`) : [`${path}.${k}: not among ${names.join(', ')}`]));
}

/** Every field of the event that does not reach the n8n item. */
function itemMisses(name: string, event: HostEvent, item: INodeExecutionData): string[] {
  const fields = event as unknown as Record<string, unknown>;
  return Object.keys(EVENT_FIELDS[name as HostEvent['event']]).flatMap((field) => {
    const value = fields[field];
    if (!Buffer.isBuffer(value)) return fieldMisses(value, field, item.json, `${name}.${field}`);
    const binary = item.binary?.[ruleName(field)];
    return binary?.data === value.toString('base64') ? [] : [`${name}.${field}: not the item's binary ${ruleName(field)}`];
  });
}

/** Every field of the event that does not reach the Node-RED message. */
function messageMisses(name: string, event: HostEvent): string[] {
  const msg = watchMessage(event);
  const fields = event as unknown as Record<string, unknown>;
  return Object.keys(EVENT_FIELDS[name as HostEvent['event']]).flatMap((field) => {
    const value = fields[field];
    if (Buffer.isBuffer(value)) return msg[ruleName(field)] === value && !(field in msg.payload) ? [] : [`${name}.${field}: not msg.${ruleName(field)} (and only there)`];
    return msg.payload[field] === value ? [] : [`${name}.${field}: not msg.payload.${field}`];
  });
}

const events = fixtures();

test('the fixtures are every event the hosts hand on (errors are failures in both), each with every documented field', () => {
  expect(Object.keys(EVENT_FIELDS).filter((name) => !(name in events))).toEqual(['error']);
  const lacking = Object.entries(events).flatMap(([name, e]) => Object.keys(EVENT_FIELDS[name as HostEvent['event']]).filter((f) => (e as unknown as Record<string, unknown>)[f] === undefined).map((f) => `${name}.${f}`));
  expect(lacking).toEqual([]);
  expect([...HOST_EVENTS].sort()).toEqual(Object.keys(events).sort());
});

test('the fields documented as pictures are the events\' Buffers, the ones the hosts hand on beside the fields', () => {
  for (const [name, e] of Object.entries(events)) {
    const buffers = Object.entries(e).filter(([, v]) => Buffer.isBuffer(v)).map(([k]) => k);
    expect([name, fieldList(EVENT_FIELDS[name as HostEvent['event']]).filter((f) => f.binary).map((f) => f.name)]).toEqual([name, buffers]);
  }
});

describe.each(Object.entries(events))('%s', (name, event) => {
  test('every field reaches the n8n item: by the rule, by a rename, or as a binary', async () => {
    expect(itemMisses(name, event, await eventItem(fakeTrigger, event))).toEqual([]);
  });

  test('every field reaches the Node-RED message: the payload as the core has it, the pictures on msg', () => {
    expect(messageMisses(name, event)).toEqual([]);
    expect(watchMessage(event).topic).toBe(name);
  });
});

describe('the names n8n items had before the rule stay', () => {
  test('a face event: the box flat with its size, roomId, personName, quality in camelCase, and the new timingMs', async () => {
    const e = events.match as MatchEvent;
    const { json, binary } = await eventItem(fakeTrigger, e);
    const { left, top, right, bottom } = e.location;
    expect(json).toEqual(expect.objectContaining({ event: 'match', faceId: e.face_id, label: e.label, personId: e.person_id, personName: e.name, score: e.score }));
    expect(json).toEqual(expect.objectContaining({ left, top, right, bottom, width: right - left, height: bottom - top, roomId: e.room, streamId: e.stream_id, streamLabel: e.stream_label }));
    expect(json).toEqual(expect.objectContaining({ track: e.track, time: e.time, latencyMs: e.latency_ms, timingMs: { ...e.timing_ms } }));
    expect(json.quality).toEqual({ facePx: e.quality.face_px, sharpness: e.quality.sharpness, brightness: e.quality.brightness, greyscale: true, direction: 'front' });
    for (const gone of ['room', 'name', 'location', 'stream_id', 'snapshot', 'face', 'snapshotBoxes']) expect(json).not.toHaveProperty(gone);
    expect(Object.keys(binary!)).toEqual(['snapshot', 'face', 'snapshotBoxes']);
    expect([binary!.snapshot.fileName, binary!.face.fileName, binary!.snapshotBoxes.fileName]).toEqual(['match-2026-11-27T03-50-17-123Z.jpg', 'match-2026-11-27T03-50-17-123Z-face.jpg', 'match-2026-11-27T03-50-17-123Z-boxes.jpg']);
    expect(binary!.face.mimeType).toBe('image/jpeg');
  });

  test('unknown, arrived and left: visitorId, firstVisit, visits, closest as {personId, personName, score}, visitId, arrivedAt, leftAt, durationS', async () => {
    const u = events.unknown as UnknownEvent;
    expect((await eventItem(fakeTrigger, u)).json).toEqual(
      expect.objectContaining({ reason: 'not_person', visitorId: u.visitor_id, firstVisit: true, visits: u.visits, closest: { personId: u.closest!.person_id, personName: u.closest!.name, score: u.closest!.score } }),
    );
    const a = events.arrived as ArrivedEvent;
    expect((await eventItem(fakeTrigger, a)).json).toEqual(expect.objectContaining({ event: 'arrived', visitId: a.visit_id, kind: 'person', faceId: a.face_id, visitorId: a.visitor_id }));
    const l = events.left as LeftEvent;
    expect((await eventItem(fakeTrigger, l)).json).toEqual(
      expect.objectContaining({ event: 'left', visitId: l.visit_id, reason: 'not_seen', track: l.track, roomId: l.room, streamId: l.stream_id, arrivedAt: l.arrived_at, leftAt: l.left_at, durationS: l.duration_s }),
    );
  });

  test('status: roomId, counts as the core names them, missingStreams, present entries in camelCase, the error as its JSON view; no binary', async () => {
    const s = events.status as StatusEvent;
    const item = await eventItem(fakeTrigger, s);
    expect(item.binary).toBeUndefined();
    expect(item.json).toEqual(expect.objectContaining({ event: 'status', state: 'stopped', roomId: s.room, counts: { ...s.counts }, missingStreams: s.missing_streams, publishersInOtherCodecs: s.publishers_in_other_codecs }));
    expect(item.json.error).toEqual({ name: 'ClientError', message: s.error!.message, code: s.error!.code, retryable: true, status: 503 });
    const p = s.present[0];
    expect((item.json.present as unknown[])[0]).toEqual({
      visitId: p.visit_id,
      kind: 'person',
      faceId: p.face_id,
      personId: p.person_id,
      personName: p.name,
      visitorId: p.visitor_id,
      track: p.track,
      label: p.label,
      streamId: p.stream_id,
      since: p.since,
      lastSeen: p.last_seen,
    });
  });

  test('a person without a name has personName null; fields the event leaves out are not in the item', async () => {
    const rest = { ...(events.match as MatchEvent) };
    for (const key of ['name', 'person_id', 'snapshot_boxes', 'timing_ms', 'stream_label'] as const) delete rest[key];
    const item = await eventItem(fakeTrigger, { ...rest, person_id: 'p-1' });
    expect(item.json).toEqual(expect.objectContaining({ personId: 'p-1', personName: null }));
    for (const absent of ['streamLabel', 'timingMs']) expect(item.json).not.toHaveProperty(absent);
    expect(Object.keys(item.binary!)).toEqual(['snapshot', 'face']);
    const plain = await eventItem(fakeTrigger, rest);
    expect(plain.json).not.toHaveProperty('personId');
    expect(plain.json).not.toHaveProperty('personName');
  });
});

test('Node-RED: the payload is the event without its pictures, snake_case; a left or status message has no picture', () => {
  const msg = watchMessage(events.arrived);
  const { snapshot, face, snapshot_boxes: boxes, ...rest } = events.arrived as ArrivedEvent;
  expect(msg).toEqual({ topic: 'arrived', payload: rest, snapshot, face, snapshotBoxes: boxes });
  expect(watchMessage(events.left)).toEqual({ topic: 'left', payload: events.left });
  expect(watchMessage(events.status)).toEqual({ topic: 'status', payload: events.status });
});
