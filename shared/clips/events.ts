import type { VideoCodec } from '../frames/types';
import type { VisitKind } from '../watch/presence';
import type { ClipContainer } from './mux';

/** What starts a clip: a visit's arrival (the default), a match, an unknown face. */
export type ClipTrigger = 'arrived' | 'match' | 'unknown';

/**
 * Why a clip could not be made: no key frame was held for it (the pre-roll bound let it go, or the
 * stream had not sent one), the disk is full, the file could not be written (permissions, the folder
 * gone), the muxer refused the frames, or the watcher stopped before it was written.
 */
export type ClipErrorCode = 'no_key_frame' | 'disk_full' | 'write_failed' | 'mux_failed' | 'stopped';

/** Why a clip ended where it did. */
export type ClipEndReason = 'post_roll' | 'max_clip' | 'stream_changed' | 'stream_left' | 'stopped';

/**
 * A clip of a visit on one stream: the pre-roll before the trigger and the frames after it, written
 * as they came (no re-encoding) once complete. With `error`, no clip was made and no file is left.
 */
export interface ClipEvent {
  event: 'clip';
  room: string;
  stream_id: string;
  /** The visit the clip is of (absent when the trigger's someone was not on a visit). */
  visit_id?: string;
  /** What started the clip. */
  trigger: ClipTrigger;
  /** The visit's kind (a person, a remembered visitor, a stranger), when the clip is of a visit. */
  kind?: VisitKind;
  /** Who: a person (person_id, name, face_id), a face of the collection, a remembered visitor, or a stranger's track. */
  person_id?: string;
  name?: string;
  face_id?: string;
  visitor_id?: string;
  track?: number;
  label: string | null;
  /** The first frame's arrival and the last frame's end (ISO 8601); the times inside the file are the stream's. */
  start?: string;
  end?: string;
  duration_s?: number;
  bytes?: number;
  container?: ClipContainer;
  codec?: VideoCodec;
  width?: number;
  height?: number;
  /** The file (absolute path, mode 0600). */
  path?: string;
  /** Why it ended there. */
  ended?: ClipEndReason;
  /** Set when no clip was made. */
  error?: ClipErrorCode;
  /** With `error`: the system's code in a word (ENOSPC, EACCES), never its message. */
  cause?: string;
  time: string;
}
