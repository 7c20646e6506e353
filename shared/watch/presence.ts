import { randomUUID } from 'node:crypto';

/**
 * Who a visit belongs to: a person of the people directory (person_id; faceId the face that
 * matched), a face of the collection in no person (face_id), a remembered stranger (visitor_id),
 * or a stranger who is not remembered, known only by the track that follows them.
 */
export type Identity = { personId: string; faceId: string } | { faceId: string } | { visitorId: string } | { streamId: string; track: number };

/** What kind of someone a visit is of. */
export type VisitKind = 'person' | 'visitor' | 'stranger';

/** One visit: from the first verdict that named someone to the last time a track of theirs was in view. */
export interface Visit {
  readonly visitId: string;
  readonly kind: VisitKind;
  readonly who: Identity;
  label: string | null;
  /** Epoch ms of the visit's first verdict. */
  readonly arrivedAt: number;
  /** Epoch ms they were last in view, on any stream. */
  lastSeen: number;
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

  /** A verdict named someone on `streamId`: the new visit when this starts one, else undefined (the visit under way goes on). */
  arrive(who: Identity, label: string | null, streamId: string, now: number): Visit | undefined {
    if (this.#closed) return undefined;
    const key = keyOf(who);
    const visit = this.#visits.get(key);
    if (visit) {
      visit.lastSeen = now;
      visit.streamId = streamId;
      visit.label = label;
      return undefined;
    }
    const started: Visit = { visitId: randomUUID(), kind: kindOf(who), who, label, arrivedAt: now, lastSeen: now, streamId };
    this.#visits.set(key, started);
    return started;
  }

  /** A track of someone on a visit is still in view on `streamId`; others are ignored. */
  seen(who: Identity, streamId: string, now: number): void {
    const visit = this.#visits.get(keyOf(who));
    if (!visit) return;
    visit.lastSeen = now;
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
      if (now - visit.lastSeen < this.#leftAfterMs) continue;
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
