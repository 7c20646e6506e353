import type { ClientError } from '../errors';
import type { ClipEvent } from '../clips/events';
import type { PreRollStats } from '../clips/pre-roll';

export type { ClipEvent } from '../clips/events';
import type { Closest } from '../people/verdict';
import type { Box } from './geometry';
import type { VisitKind } from './presence';
import type { FaceQuality } from './quality';

export type { FaceQuality } from './quality';
export type { VisitKind } from './presence';

/** Names of the events a watcher emits. */
export type WatchEventName = 'match' | 'unknown' | 'arrived' | 'left' | 'status' | 'error';

/** Fields every face event carries. */
interface FaceEventBase {
  /** Where the face is in the frame (pixels, right/bottom exclusive). */
  location: Box;
  room: string;
  /** The stream (the publisher's client_id) the face was seen on. */
  stream_id: string;
  /** The user's label for the stream, when `labels` names it. */
  stream_label?: string;
  /** Track number within the stream: the same person followed from sample to sample. */
  track: number;
  /** When the event was made (ISO 8601). */
  time: string;
  /** The whole frame, JPEG. */
  snapshot: Buffer;
  /**
   * The face, JPEG: the image sent to compare (a crop scaled so the face is inside the API's
   * 120..280 px rule, so it can be enrolled as it is; the whole frame when only that could be compared).
   */
  face: Buffer;
  /** The frame with the faces' boxes drawn, JPEG (with `drawBoxes`). */
  snapshot_boxes?: Buffer;
  /** The face's size, sharpness, brightness, colour and direction in this sample. */
  quality: FaceQuality;
  /** From the arrival of the sampled frame (the one `location` and `snapshot` show) to this event, ms. */
  latency_ms: number;
  /** Where that time went, ms: decoding the frame, the snapshot JPEG, detect_faces, this face's crop, its compare call. */
  timing_ms?: { decode: number; snapshot: number; detect: number; crop: number; compare: number };
}

/**
 * A face the collection knows (best score at or above the threshold). With `people`, a face of a
 * person is that person: one match per person per cooldown, whichever of their faces matched.
 */
export interface MatchEvent extends FaceEventBase {
  event: 'match';
  /** The face of the collection that matched. */
  face_id: string;
  /** With `people`: the person that face belongs to. */
  person_id?: string;
  /** With `people`: the person's name. */
  name?: string;
  /** The person's name, else the user's label for the face, or null when `labels` does not name it. */
  label: string | null;
  score: number;
}

/** A face the collection does not know (best score below the threshold), or one the service could not compare. */
export interface UnknownEvent extends FaceEventBase {
  event: 'unknown';
  /** Best score found (0 when the collection is empty); null when the face could not be compared. */
  score: number | null;
  /**
   * 'not_comparable': there is no score, the service found no usable face in any image tried (`face`
   * is the first crop). 'not_person' (with `people`): the face reached a person's threshold but is
   * more like a face marked as not them (`closest` names them).
   */
  reason?: 'not_comparable' | 'not_person';
  /** With `people`: the person nearest to this face (scoring at least 0.5, or the one it was not taken for). */
  closest?: Closest;
  /** With rememberVisitors: the stranger's id (the face_id of the crop enrolled at the first visit). */
  visitor_id?: string;
  /** With rememberVisitors: true at the visit that enrolled the stranger. */
  first_visit?: boolean;
  /** With rememberVisitors: how many visits (new tracks past the cooldown) this stranger has made. */
  visits?: number;
}

/**
 * Someone's visit starts: told at its first verdict, whatever the cooldown; the visit itself began
 * when their face was first seen (`arrived_at`), which a slow verdict puts seconds earlier. For a person (with `people`:
 * `person_id` and `name`, beside the `face_id` that matched; else a face of the collection, `face_id`), a remembered stranger (`visitor_id`), or a stranger who is not remembered (one visit
 * per track). Each visit ends in exactly one `left` with the same `visit_id`.
 */
export interface ArrivedEvent extends FaceEventBase, VisitOf {
  event: 'arrived';
  /** The verdict's score: the best similarity found, null when the face could not be compared. */
  score: number | null;
  /** When the visit began: the frame in which this face was first seen (ISO 8601); `time` minus this is how late the arrival is told. */
  arrived_at: string;
}

/** Who a visit is of, as `arrived`, `left` and the present list name them. */
export interface VisitOf {
  visit_id: string;
  kind: VisitKind;
  /** The person's face_id (kind `person`): with `people`, the face that matched. */
  face_id?: string;
  /** With `people`: the person (kind `person`), and their name (as now in the store). */
  person_id?: string;
  name?: string;
  /** The remembered stranger's id (kind `visitor`). */
  visitor_id?: string;
  /** The person's name, else the user's label for them, or null. */
  label: string | null;
}

/** Someone on a visit now, as `watcher.present()` and status events list them. */
export interface PresentEntry extends VisitOf {
  /** The track of a stranger who is not remembered. */
  track?: number;
  /** The stream they were last seen on. */
  stream_id: string;
  /** When the visit began: the frame in which the face was first seen (ISO 8601). */
  since: string;
  /** The frame in which they were last seen (ISO 8601). */
  last_seen: string;
}

/** States a watcher reports. */
export type WatchState = 'joining' | 'watching' | 'rejoining' | 'paused' | 'stopped';

/** Why a watcher stopped: its owner asked, its start failed, or its session was lost for good. */
export type StopReason = 'requested' | 'start_failed' | 'session_lost';

/** Where the watcher stands, with counts. */
export interface StatusEvent {
  event: 'status';
  state: WatchState;
  room: string;
  counts: StatusCounts;
  /** The decoder backend in use (once known). */
  decoder?: string;
  /** Streams named in `streams` that have not appeared. */
  missing_streams?: string[];
  /** Publishers the room has while none reaches this watcher: they send another codec than the one asked for (`detail` names it). */
  publishers_in_other_codecs?: number;
  /** Why the state changed, in words (e.g. the rejoin reason, the length of a pause). */
  detail?: string;
  /** With `stopped`: why the watcher stopped. */
  reason?: StopReason;
  /** With `stopped` for a failure: the error that ended the watch (also sent as an `error` event). */
  error?: ClientError;
  /** Who is here now (as `watcher.present()`). */
  present: PresentEntry[];
  /** With clips: each stream's pre-roll (what it holds, its bytes bound, the frames that bound let go). */
  pre_roll?: PreRollEntry[];
  /** With `history`: writes kept and dropped, the last failure's code, and what the last retention sweep removed. */
  history?: HistoryStatus;
  time: string;
}

/** What a watcher's history recorder tells of itself in each status event (with `history`). */
export interface HistoryStatus {
  /** Writes that reached the store: visits created and updated, media stored. */
  written: number;
  /** Writes given up: failed after every attempt, refused by a full queue, or left when the recorder closed. */
  dropped: number;
  /** Writes waiting now. */
  queued: number;
  /** The code of the last failure (the store's, e.g. SQLITE_READONLY, ENOSPC, or the recorder's). */
  last_error?: string;
  /** The last retention sweep: what it removed and when (the store's SweepReceipt). */
  last_sweep?: { removed_visits: number; removed_media: number; removed_media_for_size: number; freed_bytes: number; time: string };
}

/** A stream's pre-roll, as status events list them. */
export interface PreRollEntry extends PreRollStats {
  stream_id: string;
}

/** Counts in a status event. */
export interface StatusCounts {
  streams: number;
  frames: number;
  samples: number;
  analysed: number;
  matches: number;
  unknowns: number;
  api_calls: number;
}

/**
 * Which part of the watcher an error comes from:
 * - 'session': the room's signaling and WebRTC session gave up (the watcher stops: a `stopped` status follows);
 * - 'decoder': a stream's video cannot be decoded (no decoder for its codec, or the decoder failed);
 * - 'api': a Visual Recognition call for a stream's sample failed (a spent quota included);
 * - 'stream': another failure of the analysis of one stream's sample;
 * - 'visitors': the visitor book could not enrol, remove or store visitors (with rememberVisitors);
 * - 'people': the people store could not be read or was refused (with `people`; the last people read stay in use);
 * - 'history': a write to the history was dropped after its retries, or a retention sweep failed (with `history`; watching goes on).
 */
export type ErrorSource = 'session' | 'decoder' | 'api' | 'stream' | 'visitors' | 'people' | 'history';

/** A failure the watcher survived (or, for `stop`-worthy ones, the reason it stopped). */
export interface ErrorEvent {
  event: 'error';
  error: ClientError;
  /** Which part of the watcher failed. */
  source: ErrorSource;
  /** The stream concerned, when the failure belongs to one. */
  stream_id?: string;
  time: string;
}

/** Why a visit ended: not seen for `leftAfterSeconds`, the watcher stopped, or a stranger's track was recognised as someone known. */
export type LeftReason = 'not_seen' | 'stopped' | 'recognised';

/**
 * A visit is over: the one its `arrived` began (same `visit_id`). Usually someone has not been seen
 * on any stream of the room for `leftAfterSeconds`. (Not `left` for the box side: n8n items already
 * flatten a box into left/top/...)
 */
export interface LeftEvent extends VisitOf {
  event: 'left';
  reason: LeftReason;
  /** The track of a stranger who is not remembered. */
  track?: number;
  room: string;
  /** The stream the person was last seen on. */
  stream_id: string;
  /** When the visit began: the frame in which the face was first seen, as its `arrived` says (ISO 8601). */
  arrived_at: string;
  /** The frame in which they were last seen (ISO 8601). */
  left_at: string;
  /** left_at - arrived_at, seconds: how long they were in view. */
  duration_s: number;
  time: string;
}

/** A tracked face's verdict so far: a person, a remembered visitor, a stranger, or not decided yet. */
export type TrackVerdict = 'person' | 'visitor' | 'unknown' | 'pending';

/** One face the tracker follows, as a `tracks` event lists it. */
export interface TrackBox {
  track: number;
  /** Where the face is in the sampled frame (pixels, right/bottom exclusive). */
  location: Box;
  verdict: TrackVerdict;
  person_id?: string;
  name?: string;
  face_id?: string;
  visitor_id?: string;
  /** The person's name, else the user's label, else null. */
  label: string | null;
}

/**
 * With `tracks`: every face tracked on a stream at one analysed sample, with its verdict so far
 * (no API call of its own: the tracker already knows). An empty list says the stream's faces are gone.
 */
export interface TracksEvent {
  event: 'tracks';
  room: string;
  stream_id: string;
  stream_label?: string;
  /** The sampled frame's arrival (ISO 8601): the moment the boxes describe. */
  frame_time: string;
  /** The sampled frame's size, pixels. */
  width: number;
  height: number;
  tracks: TrackBox[];
  /**
   * With `stillEverySeconds`: a small JPEG of the sampled frame (longer side at most 640 px), at most
   * once per that many seconds and stream, so a view has each stream's latest picture at once.
   */
  still?: Buffer;
  time: string;
}

/** Any event of a watcher. */
export type WatchEvent = MatchEvent | UnknownEvent | ArrivedEvent | LeftEvent | StatusEvent | ErrorEvent;

/** Listener signatures (EventEmitter map). */
export interface WatcherEvents {
  match: [MatchEvent];
  unknown: [UnknownEvent];
  arrived: [ArrivedEvent];
  status: [StatusEvent];
  error: [ErrorEvent];
  left: [LeftEvent];
  /** With `clips`: a clip of a visit is written, or could not be made. */
  clip: [ClipEvent];
  /** With `tracks`: the faces tracked at each analysed sample. */
  tracks: [TracksEvent];
}
