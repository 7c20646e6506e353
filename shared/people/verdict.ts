import type { IndexedPerson, PeopleIndex } from './people-index';

/**
 * Default `closestBar`: an unknown face names the closest person when that person scored at least
 * this. Half-way similar is worth a look by a person ("was that Anna?") while far below the usual
 * match thresholds (0.7): often enough to help, rarely enough to stay quiet on strangers.
 */
export const DEFAULT_CLOSEST_BAR = 0.5;

/** One face of the collection and how similar the compared face is to it (a compare's result). */
export interface FaceScore {
  face_id: string;
  score: number;
}

/** The person nearest to a face that was not taken for them. */
export interface Closest {
  person_id: string;
  name: string;
  score: number;
}

/** Who a compared face is: a person, a face in no person (as before people), or nobody known. */
export type PersonVerdict =
  | { kind: 'person'; person_id: string; name: string; face_id: string; score: number }
  | { kind: 'face'; face_id: string; score: number }
  | { kind: 'unknown'; score: number; reason?: 'not_person'; closest?: Closest };

/** Thresholds of the verdict. */
export interface VerdictOptions {
  /** Least score for a person or a face. */
  threshold: number;
  /** Least score for an unknown to name its closest person (default DEFAULT_CLOSEST_BAR). */
  closestBar?: number;
}

interface Candidate {
  who?: IndexedPerson;
  face_id: string;
  score: number;
  /** The person's best not-face score. */
  not: number;
}

/**
 * The verdict on a compare's scores. Scores are grouped by person (a person's score is their best
 * face's); a face in no person is a group of its own and a not-face counts only against its person.
 * The best group at or above the threshold wins, except a person whose score does not beat the best
 * of their not-faces (the face is more like someone taken for them): passed over, and if no one
 * else wins the face is unknown with reason 'not_person' naming them as closest. Otherwise an
 * unknown names the best person scoring at least `closestBar`. An unknown's score is the best score of all.
 */
export function personVerdict(scores: readonly FaceScore[], index: PeopleIndex, o: VerdictOptions): PersonVerdict {
  const groups = new Map<string, Candidate>();
  let top = 0;
  for (const s of scores) {
    top = Math.max(top, s.score);
    const not = index.notFaceOf(s.face_id);
    if (not) {
      const g = group(groups, not, s.face_id);
      g.not = Math.max(g.not, s.score);
      continue;
    }
    const who = index.personOf(s.face_id);
    const g = who ? group(groups, who, s.face_id) : group(groups, undefined, s.face_id);
    if (s.score > g.score || g.face_id === '') [g.score, g.face_id] = [s.score, s.face_id];
  }
  const ranked = [...groups.values()].filter((g) => g.face_id !== '').sort((a, b) => b.score - a.score);
  let refused: Candidate | undefined;
  for (const g of ranked) {
    if (g.score < o.threshold) break;
    if (!g.who) return { kind: 'face', face_id: g.face_id, score: g.score };
    if (g.score > g.not) return { kind: 'person', person_id: g.who.person_id, name: g.who.name, face_id: g.face_id, score: g.score };
    refused ??= g;
  }
  if (refused?.who) return { kind: 'unknown', score: top, reason: 'not_person', closest: closestOf(refused.who, refused.score) };
  const near = ranked.find((g) => g.who);
  if (near?.who && near.score >= (o.closestBar ?? DEFAULT_CLOSEST_BAR)) return { kind: 'unknown', score: top, closest: closestOf(near.who, near.score) };
  return { kind: 'unknown', score: top };
}

function group(groups: Map<string, Candidate>, who: IndexedPerson | undefined, faceId: string): Candidate {
  const key = who ? `p:${who.person_id}` : `f:${faceId}`;
  let g = groups.get(key);
  if (!g) groups.set(key, (g = { who, face_id: '', score: -1, not: -1 }));
  return g;
}

function closestOf(who: IndexedPerson, score: number): Closest {
  return { person_id: who.person_id, name: who.name, score };
}
