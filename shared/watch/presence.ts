/** Who a visit belongs to: a person of the collection (face_id) or a remembered stranger (visitor_id). */
export interface Identity {
  faceId?: string;
  visitorId?: string;
}

/** One visit: from the first verdict that named the person to the last time a track of theirs was in view. */
export interface Visit extends Identity {
  label: string | null;
  /** Epoch ms of the visit's first verdict. */
  arrivedAt: number;
  /** Epoch ms the person was last in view, on any stream. */
  lastSeen: number;
  /** The stream they were last seen on. */
  streamId: string;
}

/**
 * Who is here now, per identity, across every stream of a room. It costs no API call: tracks that
 * stay in view (and scenes the change gate found still) keep a visit alive; a visit not seen for
 * `leftAfterMs` is over.
 */
export class Presence {
  readonly #leftAfterMs: number;
  readonly #visits = new Map<string, Visit>();

  constructor(leftAfterMs: number) {
    this.#leftAfterMs = leftAfterMs;
  }

  /** Starts a visit, or keeps the one under way: a verdict named this person on `streamId`. */
  arrived(who: Identity, label: string | null, streamId: string, now: number): void {
    const key = keyOf(who);
    const visit = this.#visits.get(key);
    if (visit) {
      visit.lastSeen = now;
      visit.streamId = streamId;
      visit.label = label;
      return;
    }
    this.#visits.set(key, { ...who, label, arrivedAt: now, lastSeen: now, streamId });
  }

  /** A track of someone on a visit is still in view on `streamId`; others are ignored. */
  seen(who: Identity, streamId: string, now: number): void {
    const visit = this.#visits.get(keyOf(who));
    if (!visit) return;
    visit.lastSeen = now;
    visit.streamId = streamId;
  }

  /** The visits over by `now`, taken out. */
  over(now: number): Visit[] {
    const gone: Visit[] = [];
    for (const [key, visit] of this.#visits) {
      if (now - visit.lastSeen < this.#leftAfterMs) continue;
      this.#visits.delete(key);
      gone.push(visit);
    }
    return gone;
  }

  /** The visits under way. */
  get here(): readonly Visit[] {
    return [...this.#visits.values()];
  }
}

function keyOf(who: Identity): string {
  return who.visitorId !== undefined ? `v:${who.visitorId}` : `f:${who.faceId}`;
}
