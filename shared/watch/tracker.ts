import { thumbnailDifference } from '../picture/gray';
import { boxArea, iou, type Box } from './geometry';
import { clearlyBetter, type FaceQuality } from './quality';

/** Settings of the tracker. */
export interface TrackerOptions {
  /** Least overlap (IoU) for a face to continue a track. */
  minIou: number;
  /** A track missed in a sample ends once it has gone unseen this long (ms), even if no sample was analysed since. */
  lostAfterMs: number;
  /** Analysed samples a track may go unseen before it ends (a detector's miss should not start a new track). */
  maxMissed: number;
  /** A known track is compared again after this many ms. */
  recheckMs: number;
  /** An unknown track is compared again once its box has grown by this factor (area) since its last compare. */
  growth: number;
  /** A face whose look (mean abs. difference of face thumbnails, 0..255) differs more than this starts a new track. */
  maxLookChange: number;
}

/** Defaults. */
export const DEFAULT_TRACKER: TrackerOptions = { minIou: 0.3, lostAfterMs: 2000, maxMissed: 1, recheckMs: 30_000, growth: 1.5, maxLookChange: 40 };

/** What the tracker knows of one face it follows. */
export interface Track {
  readonly id: number;
  /** When the frame the track began with arrived (the time given to update): when this face was first seen. */
  readonly firstSeen: number;
  box: Box;
  /** Small grey copy of the face, to tell a different face in the same place. */
  look?: Uint8Array;
  /** Result of the last finished compare; a match of a person's face names the person (with `people`). */
  verdict?: { kind: 'match'; faceId: string; score: number; personId?: string } | { kind: 'unknown'; score: number | null };
  /** When the last compare finished, and the box area and the face's quality then. */
  comparedAt?: number;
  comparedArea?: number;
  comparedQuality?: FaceQuality;
  /** The face's quality in the latest sample. */
  quality?: FaceQuality;
  /** Box area when the face was last found too small to compare (it is tried again once grown). */
  skippedArea?: number;
  unknownEmitted: boolean;
  /** Retry candidates (other crops, the whole frame) already tried for this face, over its samples. */
  retries?: number;
  /** The remembered stranger this track is (with rememberVisitors). */
  visitorId?: string;
  missed: number;
  lastSeen: number;
}

/** A face of this sample and its track; `compare` says why it should be compared now (or undefined). */
export interface TrackedFace {
  track: Track;
  box: Box;
  compare?: 'new' | 'pending' | 'grown' | 'better' | 'recheck';
}

/** A face seen in a sample. */
export interface SeenFace {
  box: Box;
  look?: Uint8Array;
  quality?: FaceQuality;
}

/**
 * Follows faces between analysed samples by box overlap (and a look check, so someone else in the
 * same spot is a new track), and says which faces are worth a compare call: new tracks, tracks whose
 * compare has not succeeded yet, unknown tracks seen clearly better than when compared (larger,
 * sharper, out of the dark), and known tracks after recheckMs.
 */
export class Tracker {
  readonly #o: TrackerOptions;
  #tracks: Track[] = [];
  #nextId = 1;

  constructor(options: Partial<TrackerOptions> = {}) {
    this.#o = { ...DEFAULT_TRACKER, ...options };
  }

  /** Tracks alive now. */
  get tracks(): readonly Track[] {
    return this.#tracks;
  }

  /** Matches the faces of an analysed sample to tracks; unmatched faces start tracks, unseen tracks age. */
  update(faces: readonly SeenFace[], now: number): TrackedFace[] {
    // A missed track whose scene then stayed still (the gate held the samples back) has left: someone
    // stepping into the same place later is not taken for the person who was there.
    this.#tracks = this.#tracks.filter((t) => t.missed === 0 || now - t.lastSeen <= this.#o.lostAfterMs);
    const pairs: { t: number; f: number; overlap: number }[] = [];
    this.#tracks.forEach((track, t) =>
      faces.forEach((face, f) => {
        const overlap = iou(track.box, face.box);
        if (overlap < this.#o.minIou) return;
        if (track.look && face.look && thumbnailDifference(normalised(track.look), normalised(face.look)) > this.#o.maxLookChange) return;
        pairs.push({ t, f, overlap });
      }),
    );
    pairs.sort((a, b) => b.overlap - a.overlap);
    const trackOf = new Map<number, Track>();
    const usedTracks = new Set<number>();
    for (const p of pairs) {
      if (usedTracks.has(p.t) || trackOf.has(p.f)) continue;
      usedTracks.add(p.t);
      trackOf.set(p.f, this.#tracks[p.t]);
    }
    const kept = this.#tracks.filter((track, t) => {
      if (usedTracks.has(t)) return true;
      track.missed++;
      return track.missed <= this.#o.maxMissed;
    });
    const out: TrackedFace[] = faces.map((face, f) => {
      let track = trackOf.get(f);
      if (!track) {
        track = { id: this.#nextId++, firstSeen: now, box: face.box, look: face.look, quality: face.quality, unknownEmitted: false, missed: 0, lastSeen: now };
        kept.push(track);
        return { track, box: face.box, compare: 'new' };
      }
      track.box = face.box;
      track.missed = 0;
      track.lastSeen = now;
      if (face.look) track.look = face.look;
      if (face.quality) track.quality = face.quality;
      return { track, box: face.box, compare: this.#reason(track, now) };
    });
    this.#tracks = kept;
    return out;
  }

  /** The scene did not change (the gate held the sample back): the tracks in view stay alive. */
  touch(now: number): void {
    for (const t of this.#tracks) if (t.missed === 0) t.lastSeen = now;
  }

  /** Records a finished compare of a track. */
  compared(track: Track, verdict: NonNullable<Track['verdict']>, now: number): void {
    track.verdict = verdict;
    track.comparedAt = now;
    track.comparedArea = boxArea(track.box);
    track.comparedQuality = track.quality;
  }

  /** Records that a track's face was too small to compare. */
  skipped(track: Track): void {
    track.skippedArea = boxArea(track.box);
  }

  /** True when a face in view still waits for a successful compare: the gate should not hold the next sample back. */
  get pending(): boolean {
    return this.#tracks.some((t) => t.missed === 0 && t.comparedAt === undefined && t.skippedArea === undefined);
  }

  #reason(track: Track, now: number): TrackedFace['compare'] {
    if (track.comparedAt === undefined || !track.verdict) {
      if (track.skippedArea === undefined) return 'pending';
      return boxArea(track.box) >= track.skippedArea * this.#o.growth ? 'grown' : undefined;
    }
    if (track.verdict.kind === 'unknown') {
      if (track.quality && track.comparedQuality) {
        if (clearlyBetter(track.quality, track.comparedQuality)) return 'better';
      } else if (boxArea(track.box) >= (track.comparedArea ?? 0) * this.#o.growth) return 'grown';
    }
    if (now - track.comparedAt >= this.#o.recheckMs) return 'recheck';
    return undefined;
  }
}

// Brightness shifts (a light switched on) should not split a track: compare looks around their means.
function normalised(look: Uint8Array): Uint8Array {
  let sum = 0;
  for (const v of look) sum += v;
  const shift = 128 - sum / Math.max(1, look.length);
  return look.map((v) => Math.max(0, Math.min(255, Math.round(v + shift))));
}
