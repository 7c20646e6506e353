import { randomUUID } from 'node:crypto';

/**
 * Who a visit belongs to: a person of the people directory (person_id; faceId the face that
 * matched), a face of the collection in no person (face_id), a remembered stranger (visitor_id),
 * or a stranger who is not remembered, known only by the track that follows them.
 */
export type Identity = { personId: string; faceId: string } | { faceId: string } | { visitorId: string } | { streamId: string; track: number };

/** What kind of someone a visit is of. */
export type VisitKind = 'person' | 'visitor' | 'stranger';

/**
 * One visit: from the frame in which a face of theirs was first seen to the last frame a track of
 * theirs was in view. It is known to be a visit at its first verdict, which can come seconds later.
 */
export interface Visit {
  readonly visitId: string;
  readonly kind: VisitKind;
  readonly who: Identity;
  label: string | null;
  /** Epoch ms of the frame in which the face that began the visit was first seen (its track began). */
  readonly arrivedAt: number;
  /** Epoch ms of the last frame they were in view in, on any stream. */
  lastSeen: number;
  /** Epoch ms the visit was known (its first verdict): until leftAfter past it, it is not over, as no frame was looked at while the verdict was awaited. */
  readonly knownAt: number;
  /** The stream they were last seen on. */
  streamId: string;
}

/**
 * Who is here now, across every stream of a room. Each visit starts once (`arrive` says when) and
 * ends once: not seen for `leftAfterMs` (`over`), taken out by `end`, or at `close`. It costs no
 * API call: tracks that stay in view (and scenes the change gate found still) keep a visit alive.
 */
export class Presence {
  readonly #leftAfterMs: number;
  readonly #visits = new Map<string, Visit>();
  #closed = false;

  constructor(leftAfterMs: number) {
    this.#leftAfterMs = leftAfterMs;
  }

  /**
   * A verdict named someone on `streamId`, whose face was last seen at `now` and first seen at
   * `firstSeen` (the frame its track began with; default `now`): the new visit when this starts one,
   * beginning at `firstSeen` and known at `knownAt` (when the verdict came; default `now`), else
   * undefined (the visit under way goes on).
   */
  arrive(who: Identity, label: string | null, streamId: string, now: number, firstSeen = now, knownAt = now): Visit | undefined {
    if (this.#closed) return undefined;
    const key = keyOf(who);
    const visit = this.#visits.get(key);
    if (visit) {
      this.#saw(visit, streamId, now);
      visit.label = label;
      return undefined;
    }
    const started: Visit = { visitId: randomUUID(), kind: kindOf(who), who, label, arrivedAt: Math.min(firstSeen, now), lastSeen: now, knownAt: Math.max(knownAt, now), streamId };
    this.#visits.set(key, started);
    return started;
  }

  /** A track of someone on a visit is still in view on `streamId`; others are ignored. */
  seen(who: Identity, streamId: string, now: number): void {
    const visit = this.#visits.get(keyOf(who));
    if (visit) this.#saw(visit, streamId, now);
  }

  // Streams are analysed side by side: a frame older than the latest one seen does not move the visit back.
  #saw(visit: Visit, streamId: string, at: number): void {
    if (at < visit.lastSeen) return;
    visit.lastSeen = at;
    visit.streamId = streamId;
  }

  /** Ends one visit now (a stranger's track turned out to be someone known); the visit, if there was one. */
  end(who: Identity): Visit | undefined {
    const key = keyOf(who);
    const visit = this.#visits.get(key);
    this.#visits.delete(key);
    return visit;
  }

  /** The visits over by `now`, taken out. */
  over(now: number): Visit[] {
    const gone: Visit[] = [];
    for (const [key, visit] of this.#visits) {
      if (now - Math.max(visit.lastSeen, visit.knownAt) < this.#leftAfterMs) continue;
      this.#visits.delete(key);
      gone.push(visit);
    }
    return gone;
  }

  /** Ends every visit under way and starts no more: the watcher stops. Idempotent. */
  close(): Visit[] {
    this.#closed = true;
    const all = [...this.#visits.values()];
    this.#visits.clear();
    return all;
  }

  /** A person's name changed (or the person is gone: undefined keeps the label): their visit's label follows. */
  relabel(nameOf: (personId: string) => string | undefined): void {
    for (const visit of this.#visits.values()) {
      if (!('personId' in visit.who)) continue;
      const name = nameOf(visit.who.personId);
      if (name !== undefined) visit.label = name;
    }
  }

  /** The visits under way, earliest first. */
  get here(): readonly Visit[] {
    return [...this.#visits.values()];
  }
}

function kindOf(who: Identity): VisitKind {
  return 'faceId' in who ? 'person' : 'visitorId' in who ? 'visitor' : 'stranger';
}

// A person is one someone whichever of their faces matched.
function keyOf(who: Identity): string {
  if ('personId' in who) return `p:${who.personId}`;
  if ('visitorId' in who) return `v:${who.visitorId}`;
  if ('faceId' in who) return `f:${who.faceId}`;
  return `t:${who.streamId}\u0000${who.track}`;
}
