import type { ClientError } from '../errors';
import type { Box } from './geometry';

/** Names of the events a watcher emits. */
export type WatchEventName = 'match' | 'unknown' | 'status' | 'error';

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
  /** From the arrival of the sampled frame to this event, ms. */
  latency_ms: number;
  /** Where that time went, ms: decoding the frame, the snapshot JPEG, detect_faces, this face's crop, its compare call. */
  timing_ms?: { decode: number; snapshot: number; detect: number; crop: number; compare: number };
}

/** A face the collection knows (best score at or above the threshold). */
export interface MatchEvent extends FaceEventBase {
  event: 'match';
  face_id: string;
  /** The user's label for the face, or null when `labels` does not name it. */
  label: string | null;
  score: number;
}

/** A face the collection does not know (best score below the threshold), or one the service could not compare. */
export interface UnknownEvent extends FaceEventBase {
  event: 'unknown';
  /** Best score found (0 when the collection is empty); null when the face could not be compared. */
  score: number | null;
  /** Why there is no score: the service found no usable face in any image tried (`face` is the first crop). */
  reason?: 'not_comparable';
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
  /** Why the state changed, in words (e.g. the rejoin reason, the length of a pause). */
  detail?: string;
  /** With `stopped`: why the watcher stopped. */
  reason?: StopReason;
  /** With `stopped` for a failure: the error that ended the watch (also sent as an `error` event). */
  error?: ClientError;
  time: string;
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

/** A failure the watcher survived (or, for `stop`-worthy ones, the reason it stopped). */
export interface ErrorEvent {
  event: 'error';
  error: ClientError;
  /** The stream concerned, when the failure belongs to one. */
  stream_id?: string;
  time: string;
}

/** Any event of a watcher. */
export type WatchEvent = MatchEvent | UnknownEvent | StatusEvent | ErrorEvent;

/** Listener signatures (EventEmitter map). */
export interface WatcherEvents {
  match: [MatchEvent];
  unknown: [UnknownEvent];
  status: [StatusEvent];
  error: [ErrorEvent];
}
