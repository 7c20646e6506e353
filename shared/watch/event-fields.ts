import type { ArrivedEvent, HistoryStatus, ClipEvent, ErrorEvent, FaceQuality, LeftEvent, MatchEvent, PresentEntry, PreRollEntry, StatusCounts, StatusEvent, TrackBox, TracksEvent, UnknownEvent, WatchEventName } from './events';

/**
 * The fields of each event the watcher emits, each with one line of doc, in the order the docs list
 * them. The docs' event tables are generated from here; the types below make the compiler refuse a
 * list that lacks a field of its event type, names one it does not have, or marks optionality
 * differently, and test/docs checks the same against the types as the compiler reads them.
 */

/**
 * One field of an event: a line of doc, `optional` when not every event of its kind carries it, and
 * `binary` for a picture (a Buffer: hosts hand it on beside the fields, as an n8n binary property).
 */
export interface EventField {
  readonly doc: string;
  readonly optional?: boolean;
  readonly binary?: boolean;
}

/** Keys of T that T may leave out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** `binary: true` where the field is a Buffer, and only there. */
type BinaryMark<V> = [NonNullable<V>] extends [Buffer] ? { readonly binary: true } : { readonly binary?: false };

/** Exactly the keys of T, each documented, `optional: true` where T may leave it out (and only there), `binary: true` on its Buffers. */
export type FieldDocs<T> = {
  readonly [K in keyof T]-?: (K extends OptionalKeys<T> ? { readonly doc: string; readonly optional: true } : { readonly doc: string; readonly optional?: false }) & BinaryMark<T[K]>;
};

/** Fields every face event (match, unknown, arrived) shares; spread into each. */
const FACE_FIELDS = {
  location: { doc: 'where the face is in the frame: `left`, `top`, `right`, `bottom` (pixels, right and bottom exclusive)' },
  quality: { doc: "the face's size, sharpness, brightness, colour and direction in this sample (see the quality table)" },
  room: { doc: 'the room watched' },
  stream_id: { doc: "the stream the face was seen on (its publisher's client id)" },
  stream_label: { doc: 'the name `labels` gives the stream', optional: true },
  track: { doc: 'track number within the stream: the same face followed from sample to sample' },
  time: { doc: 'when the event was made (ISO 8601)' },
  snapshot: { doc: 'the whole frame, JPEG', binary: true },
  face: { doc: 'the face as sent to compare: a crop with the face inside the API\'s 120..280 px rule, ready to enrol (the whole frame when only that could be compared)', binary: true },
  snapshot_boxes: { doc: 'the frame with the faces boxed and labelled, JPEG (with `drawBoxes`)', optional: true, binary: true },
  latency_ms: { doc: 'from the arrival of the sampled frame (the one `location` and `snapshot` show) to this event, ms' },
  timing_ms: { doc: 'where that time went, ms: `decode`, `snapshot`, `detect`, `crop`, `compare`', optional: true },
} as const;

const MATCH_FIELDS = {
  event: { doc: '`match`' },
  face_id: { doc: 'the face of the collection that matched' },
  person_id: { doc: 'with `people`: the person that face belongs to', optional: true },
  name: { doc: "with `people`: the person's name", optional: true },
  label: { doc: "the person's name, else the label `labels` gives the face, else null" },
  score: { doc: 'similarity of the best face, at or above `threshold`' },
  ...FACE_FIELDS,
} as const satisfies FieldDocs<MatchEvent>;

const UNKNOWN_FIELDS = {
  event: { doc: '`unknown`' },
  score: { doc: 'the best similarity found (0 with an empty collection); null when no image of the face could be compared' },
  reason: { doc: '`not_comparable` (no score: the service found no usable face in any image tried) or, with `people`, `not_person` (more like a face marked as not the closest person)', optional: true },
  closest: { doc: 'with `people`: the nearest person `{person_id, name, score}` (scoring at least 0.5, or the one it was not taken for)', optional: true },
  visitor_id: { doc: "with `rememberVisitors`: the stranger's id (the face id of the crop enrolled at the first visit)", optional: true },
  first_visit: { doc: 'with `rememberVisitors`: true at the visit that enrolled the stranger', optional: true },
  visits: { doc: 'with `rememberVisitors`: how many visits this stranger has made', optional: true },
  ...FACE_FIELDS,
} as const satisfies FieldDocs<UnknownEvent>;

const ARRIVED_FIELDS = {
  event: { doc: '`arrived`' },
  visit_id: { doc: 'the visit; its `left` carries the same' },
  kind: { doc: '`person` (a face of the collection, or a person), `visitor` (a remembered stranger) or `stranger` (one visit per track)' },
  face_id: { doc: 'kind `person`: the face that matched', optional: true },
  person_id: { doc: 'with `people`, kind `person`: the person', optional: true },
  name: { doc: "with `people`: the person's name", optional: true },
  visitor_id: { doc: "kind `visitor`: the remembered stranger's id", optional: true },
  label: { doc: "the person's name or label, else null" },
  score: { doc: "the verdict's best similarity; null when the face could not be compared" },
  arrived_at: { doc: 'when the visit began: the arrival of the frame in which this face was first seen (ISO 8601); the event comes with the verdict, `time` minus `arrived_at` later' },
  ...FACE_FIELDS,
} as const satisfies FieldDocs<ArrivedEvent>;

const LEFT_FIELDS = {
  event: { doc: '`left`' },
  visit_id: { doc: 'the visit its `arrived` began' },
  kind: { doc: 'as in its `arrived`' },
  reason: { doc: '`not_seen` (unseen on every stream for `leftAfterSeconds`), `stopped` (the watcher stopped) or `recognised` (a stranger\'s track turned out to be someone known)' },
  face_id: { doc: "the person's face id", optional: true },
  person_id: { doc: 'with `people`: the person', optional: true },
  name: { doc: "with `people`: the person's name", optional: true },
  visitor_id: { doc: "the remembered stranger's id", optional: true },
  track: { doc: 'the track of a stranger who is not remembered', optional: true },
  label: { doc: "the person's name or label, else null" },
  room: { doc: 'the room watched' },
  stream_id: { doc: 'the stream they were last seen on' },
  arrived_at: { doc: 'when the visit began: the frame in which the face was first seen, as its `arrived` has it (ISO 8601)' },
  left_at: { doc: 'the frame in which they were last seen (ISO 8601)' },
  duration_s: { doc: '`left_at` minus `arrived_at`, seconds: how long they were in view' },
  time: { doc: 'when the event was made (ISO 8601)' },
} as const satisfies FieldDocs<LeftEvent>;

const STATUS_FIELDS = {
  event: { doc: '`status`' },
  state: { doc: '`joining`, `watching`, `rejoining`, `paused` or `stopped`' },
  room: { doc: 'the room watched' },
  counts: { doc: 'counts since the start (see the counts table)' },
  decoder: { doc: 'the decoder in use, once known', optional: true },
  missing_streams: { doc: 'streams named in `streams` that have not appeared', optional: true },
  publishers_in_other_codecs: { doc: "publishers of the room none of which reaches the watcher: they send another codec (`detail` names the one to ask for)", optional: true },
  detail: { doc: 'why the state changed, in words (a rejoin\'s reason, a pause\'s length)', optional: true },
  reason: { doc: 'with `stopped`: `requested` (`stop()`), `start_failed` or `session_lost` (the room could not be rejoined)', optional: true },
  error: { doc: 'with `stopped` after a failure: the error that ended the watch (also sent as an `error` event)', optional: true },
  present: { doc: 'who is here now, as `watcher.present()` lists them (see the present table)' },
  pre_roll: { doc: "with `clips`: each stream's pre-roll, what it holds and what its bytes bound let go (see the pre-roll table)", optional: true },
  history: { doc: 'with `history`: writes kept and dropped, the last failure, the last retention sweep (see the history table)', optional: true },
  time: { doc: 'when the event was made (ISO 8601)' },
} as const satisfies FieldDocs<StatusEvent>;

const ERROR_FIELDS = {
  event: { doc: '`error`' },
  error: { doc: 'the error: a `ClientError` with `code`, `message`, `retryable` and, when a response came, `status`' },
  source: { doc: 'the part that failed: `session` (the room\'s session gave up; the watcher stops), `decoder`, `api`, `stream` (one stream\'s decoding, API calls or analysis), `visitors` (the visitor book), `people` (the people store) or `history` (a history write dropped after its retries, or a retention sweep failed; watching goes on)' },
  stream_id: { doc: 'the stream concerned, when the failure belongs to one', optional: true },
  time: { doc: 'when the event was made (ISO 8601)' },
} as const satisfies FieldDocs<ErrorEvent>;

/** The fields of `quality`, on every match, unknown and arrived. */
export const QUALITY_FIELDS = {
  face_px: { doc: "the shorter side of the face's box, in the frame's pixels" },
  sharpness: { doc: '0 (flat or badly blurred) to 1: edge contrast of a grey copy of the face' },
  brightness: { doc: '0 (black) to 1 (white): mean brightness of the face' },
  greyscale: { doc: 'true for a picture without colour (a camera\'s infrared night image)' },
  direction: { doc: 'where the face looks as the service reported it: `front`, `left`, `right` (or null)' },
} as const satisfies FieldDocs<FaceQuality>;

/** The fields of each entry of `present` (status events, `watcher.present()`). */
export const PRESENT_FIELDS = {
  visit_id: { doc: 'the visit' },
  kind: { doc: '`person`, `visitor` or `stranger`' },
  face_id: { doc: "a person's face id", optional: true },
  person_id: { doc: 'with `people`: the person', optional: true },
  name: { doc: "with `people`: the person's name as the store has it now", optional: true },
  visitor_id: { doc: "a remembered stranger's id", optional: true },
  track: { doc: 'the track of a stranger who is not remembered', optional: true },
  label: { doc: 'the name or label, else null' },
  stream_id: { doc: 'the stream they were last seen on' },
  since: { doc: 'when the visit began: the frame in which the face was first seen (ISO 8601)' },
  last_seen: { doc: 'the frame in which they were last seen (ISO 8601)' },
} as const satisfies FieldDocs<PresentEntry>;

/** The fields of each entry of a status event's `pre_roll` (with `clips`). */
export const PRE_ROLL_FIELDS = {
  stream_id: { doc: 'the stream' },
  frames: { doc: 'encoded frames held now' },
  bytes: { doc: 'their bytes' },
  seconds: { doc: 'from the oldest frame held to the newest, seconds (the stream\'s times)' },
  max_bytes: { doc: 'the bound in bytes: a stream whose key frames are too far apart for the pre-roll cannot hold more' },
  dropped_frames: { doc: 'frames let go for that bound (whole groups of pictures, oldest first); a clip needing them has a `no_key_frame` error' },
} as const satisfies FieldDocs<PreRollEntry>;

/** The fields of a status event's `history` (with `history`). */
export const HISTORY_STATUS_FIELDS = {
  written: { doc: 'writes that reached the history: visits made and updated, pictures and clips stored' },
  dropped: { doc: 'writes given up: failed after 4 attempts, refused by a full queue (1000 writes or 64 MB of pictures waiting), or still waiting 5 s into the stop' },
  queued: { doc: 'writes waiting now' },
  last_error: { doc: "the last failure's code in a word (the store's, e.g. `SQLITE_READONLY`, `ENOSPC`, or `history_queue_full`)", optional: true },
  last_sweep: { doc: 'the last retention sweep (at start, then hourly): `removed_visits`, `removed_media`, `removed_media_for_size`, `freed_bytes`, `time`', optional: true },
} as const satisfies FieldDocs<HistoryStatus>;

/** The fields of a `clip` event (with `clips`). */
export const CLIP_FIELDS = {
  event: { doc: '`clip`' },
  room: { doc: 'the room watched' },
  stream_id: { doc: 'the stream the clip is cut from' },
  visit_id: { doc: 'the visit the clip is of (one clip per visit and stream)', optional: true },
  kind: { doc: "the visit's kind: `person`, `visitor` or `stranger`", optional: true },
  trigger: { doc: 'what started it: `arrived`, `match` or `unknown` (`clipOn`)' },
  person_id: { doc: 'with `people`: the person', optional: true },
  name: { doc: "with `people`: the person's name", optional: true },
  face_id: { doc: "a person's face id", optional: true },
  visitor_id: { doc: "a remembered stranger's id", optional: true },
  track: { doc: 'the track of a stranger who is not remembered', optional: true },
  label: { doc: 'the name or label, else null' },
  start: { doc: "when the clip's first frame was sent (ISO 8601); it is a key frame at or before `preRollSeconds` ahead of the face's first sight", optional: true },
  end: { doc: "the end of its last frame (ISO 8601): `postRollSeconds` after the visit was last seen, or where `ended` says", optional: true },
  duration_s: { doc: "`end` minus `start`, seconds, as the file's own times (the stream's) have it", optional: true },
  bytes: { doc: 'the file\'s size', optional: true },
  container: { doc: '`webm` (VP8, VP9) or `mp4` (H.264)', optional: true },
  codec: { doc: '`VP8`, `VP9` or `H264`: the frames as the stream sent them, not encoded again', optional: true },
  width: { doc: 'the picture width', optional: true },
  height: { doc: 'the picture height', optional: true },
  path: { doc: 'the file (absolute path, mode 0600, in `clips`)', optional: true },
  ended: { doc: 'why the clip ends there: `post_roll`, `max_clip`, `stream_changed` (a new codec or picture size, or a sender that restarted), `stream_left` or `stopped`', optional: true },
  error: { doc: 'set when no clip was made, and then no file is left: `no_key_frame` (none held: see `pre_roll`), `disk_full`, `write_failed`, `mux_failed` or `stopped` (not written within 5 s of the stop)', optional: true },
  cause: { doc: "with `error`: the system's code in a word (`ENOSPC`, `EACCES`), never its message", optional: true },
  time: { doc: 'when the event was made (ISO 8601)' },
} as const satisfies FieldDocs<ClipEvent>;

/** The fields of a `tracks` event (with `tracks`). */
export const TRACKS_FIELDS = {
  event: { doc: '`tracks`' },
  room: { doc: 'the room watched' },
  stream_id: { doc: 'the stream the faces are on' },
  stream_label: { doc: 'the name `labels` gives the stream', optional: true },
  frame_time: { doc: "the sampled frame's arrival (ISO 8601): the moment the boxes describe" },
  width: { doc: "the sampled frame's width, pixels" },
  height: { doc: "the sampled frame's height, pixels" },
  tracks: { doc: 'every face in view in that frame, with its verdict so far (see the track table); empty when the faces are gone' },
  still: { doc: 'with `stillEverySeconds`: a small JPEG of the frame (longer side at most 640 px), at most once per that many seconds and stream', optional: true, binary: true },
  time: { doc: 'when the event was made (ISO 8601)' },
} as const satisfies FieldDocs<TracksEvent>;

/** The fields of each entry of a tracks event's `tracks`. */
export const TRACK_BOX_FIELDS = {
  track: { doc: 'track number within the stream, as the face events have it' },
  location: { doc: 'where the face is in the frame: `left`, `top`, `right`, `bottom` (pixels, right and bottom exclusive)' },
  verdict: { doc: '`person` (a face of the collection, or a person), `visitor` (a remembered stranger), `unknown`, or `pending` (not compared yet)' },
  person_id: { doc: 'with `people`: the person', optional: true },
  name: { doc: "with `people`: the person's name", optional: true },
  face_id: { doc: 'verdict `person`: the face that matched', optional: true },
  visitor_id: { doc: "verdict `visitor`: the remembered stranger's id", optional: true },
  label: { doc: "the person's name, else the label `labels` gives the face, else null" },
} as const satisfies FieldDocs<TrackBox>;

/** The fields of a status event's `counts`. */
export const COUNT_FIELDS = {
  streams: { doc: 'streams being watched' },
  frames: { doc: 'frames received' },
  samples: { doc: 'samples taken' },
  analysed: { doc: 'samples sent for analysis' },
  matches: { doc: '`match` events' },
  unknowns: { doc: '`unknown` events' },
  api_calls: { doc: 'Visual Recognition calls made' },
} as const satisfies FieldDocs<StatusCounts>;

/** Each event's fields, by event name. */
export const EVENT_FIELDS = {
  match: MATCH_FIELDS,
  unknown: UNKNOWN_FIELDS,
  arrived: ARRIVED_FIELDS,
  left: LEFT_FIELDS,
  status: STATUS_FIELDS,
  error: ERROR_FIELDS,
} as const satisfies Record<WatchEventName, Record<string, EventField>>;

/** A documented object's fields as a list: name, doc, whether it may be left out and whether it is a picture. */
export function fieldList(fields: Readonly<Record<string, EventField>>): { name: string; doc: string; optional: boolean; binary: boolean }[] {
  return Object.entries(fields).map(([name, f]) => ({ name, doc: f.doc, optional: f.optional === true, binary: f.binary === true }));
}
