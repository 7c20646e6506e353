import type { Picture } from '../decode';
import type { PeopleIndex } from '../people/people-index';
import { cropToJpeg } from '../picture';
import type { TrackBox } from './events';
import type { Track } from './tracker';

/** The longest side of a still: enough for a tile, small enough to send to every page. */
export const STILL_MAX_SIDE = 640;
/** JPEG quality of a still (a placeholder shown until the video plays). */
const STILL_QUALITY = 70;

/** Who a tracked face is so far, from what the tracker knows (no API call). */
export function trackBox(track: Track, people: PeopleIndex, labels: ReadonlyMap<string, string>): TrackBox {
  const location = { ...track.box };
  if (track.visitorId !== undefined) return { track: track.id, location, verdict: 'visitor', visitor_id: track.visitorId, label: null };
  const v = track.verdict;
  if (v?.kind === 'match') {
    // A person removed since the compare: the face is named as a face again.
    const person = v.personId !== undefined ? people.person(v.personId) : undefined;
    const label = person ? person.name : (labels.get(v.faceId) ?? null);
    return { track: track.id, location, verdict: 'person', face_id: v.faceId, ...(person ? { person_id: person.person_id, name: person.name } : {}), label };
  }
  return { track: track.id, location, verdict: v?.kind === 'unknown' ? 'unknown' : 'pending', label: null };
}

/** The faces in view in the latest analysed sample (a track missed in it is not on screen). */
export function tracksInView(tracks: readonly Track[], people: PeopleIndex, labels: ReadonlyMap<string, string>): TrackBox[] {
  return tracks.filter((t) => t.missed === 0).map((t) => trackBox(t, people, labels));
}

/** A small JPEG of a whole picture, its longer side at most STILL_MAX_SIDE. */
export function stillOf(picture: Picture): Promise<Buffer> {
  const scale = Math.min(1, STILL_MAX_SIDE / Math.max(picture.width, picture.height));
  const size = { width: Math.max(1, Math.round(picture.width * scale)), height: Math.max(1, Math.round(picture.height * scale)) };
  return cropToJpeg(picture, { left: 0, top: 0, right: picture.width, bottom: picture.height }, size, { quality: STILL_QUALITY });
}
