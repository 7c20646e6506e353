import type { Picture } from '../decode';
import type { IndexedPerson, PeopleIndex } from '../people/people-index';
import { personVerdict, type Closest } from '../people/verdict';
import { cropToJpeg, drawBoxes, encodeJpeg, grayThumbnail } from '../picture';
import type { VisionClient } from '../vision';
import type { CallBudget } from './budget';
import type { ChangeGate } from './change-gate';
import type { Cooldown } from './cooldown';
import { CROP_RETRIES, fitsAsItIs, planCrop, type CropRule } from './crop-geometry';
import type { ArrivedEvent, MatchEvent, TracksEvent, UnknownEvent } from './events';
import { clipBox, type Box } from './geometry';
import type { ResolvedWatchOptions } from './options';
import type { Identity, Presence, Visit } from './presence';
import { faceQuality } from './quality';
import type { VisitorBook } from './visitors';
import type { StreamMeter } from './stats';
import type { TrackedFace, Tracker, Track } from './tracker';
import { identityFields } from './visit-events';
import { stillOf, tracksInView } from './track-boxes';
import type { CollectionMatch } from '../vision/types';

/** A decoded frame picked by the sampler, and when its encoded frame arrived (performance.now()). */
export interface Sample {
  picture: Picture;
  arrival: number;
  /** When the decoder gave the picture (performance.now()). */
  decodedAt: number;
}

/** What the analysis of one stream keeps between samples. */
export interface StreamState {
  readonly streamId: string;
  readonly gate: ChangeGate;
  readonly tracker: Tracker;
  readonly meter: StreamMeter;
  /** The last analysis did not finish: the next sample is analysed whatever the gate says. */
  dirty: boolean;
  /** The arrival of the sample the last still was made of (with `tracks`). */
  stillAt?: number;
  /** The newest sample a tracks event has described (with `tracks`): its arrival, and that as the events date it. */
  tracksFrame?: { at: number; time: string };
}

/** What the analysis needs from its watcher. */
export interface AnalysisContext {
  readonly o: ResolvedWatchOptions;
  readonly vision: VisionClient;
  readonly budget: CallBudget;
  readonly cooldown: Cooldown;
  readonly cropRule: CropRule;
  /** True while a spent quota pauses analysis. */
  paused(): boolean;
  /** An API call failed after the client's own retries. */
  apiFailed(err: unknown, streamId: string): void;
  /** An API call succeeded (ends a quota pause series). */
  apiSucceeded(): void;
  /** A sample's analysis is over (done, skipped or failed): what the stream showed up to its frame's arrival (epoch ms) is known. */
  analysed?(streamId: string, arrivalMs: number): void;
  /** With `tracks`: hands a tracks event out. */
  tracks?(event: TracksEvent): void;
  /** Hands face events out (the watcher filters and records them). */
  emit(event: MatchEvent | UnknownEvent | ArrivedEvent): void;
  /** A visit ended at once: a stranger's track was recognised as someone known. */
  ended(visit: Visit): void;
  /** True for a face_id whose events are muted (`ignore`, by face id or by its label; for a person's face by person_id or name too). */
  muted(faceId: string, person?: IndexedPerson): boolean;
  /** The people now (an empty index without the `people` option). */
  people(): PeopleIndex;
  /** Who is here now, across the room's streams. */
  readonly presence: Presence;
  /** The strangers remembered (with rememberVisitors). */
  readonly visitors?: VisitorBook;
}

/** Size of the grey copy the change gate compares. */
const GATE_THUMB = { width: 32, height: 24 };
/** Size of the grey copy of a face that tells two people in one place apart. */
const LOOK_SIDE = 16;
/** The most faces a compare returns (the API's max_results limit). */
const MAX_RESULTS = 1000;

/**
 * Outcome of the compare of one face (a match of a person's face names the person); an unknown
 * without a score could not be compared.
 */
type Verdict = { kind: 'match'; faceId: string; score: number; personId?: string } | { kind: 'unknown'; score: number | null; reason?: 'not_person'; closest?: Closest };

/** A face's compare: the verdict and the image that was (or would have been) sent. */
interface Compared {
  verdict?: Verdict;
  face?: Buffer;
  cropMs: number;
  compareMs: number;
}

/**
 * One sample through the data path: changed? -> snapshot -> faces -> per-face crop -> compare ->
 * track -> events. Each API call needs a token of the budget; a failed call leaves the work for the
 * next sample (the gate then lets it through).
 */
export async function analyseSample(sample: Sample, s: StreamState, ctx: AnalysisContext): Promise<void> {
  const m = s.meter.counters;
  const { picture } = sample;
  // The tracks' times are the frame's: a face was seen when its frame came, however long the analysis waited.
  const now = sample.arrival;
  if (ctx.paused()) {
    m.samples.skippedPaused++;
    return;
  }
  const thumb = grayThumbnail(picture, GATE_THUMB.width, GATE_THUMB.height);
  if (!s.dirty && !s.tracker.pending && !s.gate.changed(thumb)) {
    m.samples.skippedGate++;
    s.tracker.touch(now);
    markPresent(s, ctx);
    // The scene did not change: the faces are where the last analysed sample found them.
    await reportTracks(sample, s, ctx, true);
    return;
  }
  if (!ctx.budget.take()) {
    m.samples.skippedBudget++;
    return;
  }
  m.samples.analysed++;
  s.dirty = true;
  const t0 = performance.now();
  const snapshot = await encodeJpeg(picture, { quality: ctx.o.jpegQuality });
  const t1 = performance.now();
  const faces = await apiCall(ctx, s, 'detect', () => ctx.vision.detectFaces(snapshot));
  const timing = { decode: sample.decodedAt - sample.arrival, snapshot: t1 - t0, detect: performance.now() - t1 };
  if (!faces.ok) return;
  s.gate.accept(thumb);
  s.dirty = false;
  m.faces.seen += faces.value.length;
  const seen = faces.value.map((f) => {
    const box = clipBox(f.location, picture.width, picture.height);
    return { box, look: grayThumbnail(picture, LOOK_SIDE, LOOK_SIDE, box), quality: faceQuality(picture, box, f.direction ?? null) };
  });
  const tracked = s.tracker.update(seen, now);
  m.faces.tracks += tracked.filter((t) => t.compare === 'new').length;
  markPresent(s, ctx);
  // The boxes go out now, before the compares: a view draws them while the verdicts are awaited.
  await reportTracks(sample, s, ctx, true);
  const prominent = mostProminent(tracked.map((t) => t.box));
  // A face seen clearly better than when it was judged unknown gets its crop candidates again.
  for (const t of tracked) if (t.compare === 'better') t.track.retries = 0;
  const compared = await Promise.all(tracked.map((t, i) => (t.compare ? compareFace(t, picture, s, ctx, i === prominent ? snapshot : undefined) : undefined)));
  const events: (MatchEvent | UnknownEvent)[] = [];
  for (const [i, t] of tracked.entries()) {
    const c = compared[i];
    const event = c?.verdict && c.face ? await decide(t, c.verdict, s, ctx, snapshot, c.face, sample.arrival) : undefined;
    if (!event) continue;
    event.timing_ms = round({ ...timing, crop: c!.cropMs, compare: c!.compareMs });
    events.push(event);
  }
  // A verdict of this sample: the same boxes again, with it.
  if (compared.some((c) => c?.verdict)) await reportTracks(sample, s, ctx, false);
  if (events.length === 0) return;
  if (ctx.o.drawBoxes) {
    const boxed = await drawBoxes(picture, tracked.map((t) => boxOf(t, ctx)), { quality: ctx.o.jpegQuality });
    for (const e of events) e.snapshot_boxes = boxed;
  }
  for (const e of events) {
    e.latency_ms = Math.round(performance.now() - sample.arrival);
    ctx.emit(e);
  }
}

/**
 * per-face crop -> compare. The verdict is undefined when the face could not be compared this time
 * (too small, out of budget, the API failed, a retry still to come) and is worth another sample;
 * `whole` is the snapshot, given when this face is the frame's most prominent one.
 *
 * The service's detector can miss the face in a crop of a compressed frame. Then each sample tries
 * the first crop and the next candidate of CROP_RETRIES (then the whole frame, where the service
 * would take this face from it), so a face that turns or sharpens in a later sample gets its chance
 * while each sample costs at most two compares; past the last candidate it is not comparable.
 */
async function compareFace(t: TrackedFace, picture: Picture, s: StreamState, ctx: AnalysisContext, whole: Buffer | undefined): Promise<Compared> {
  const m = s.meter.counters;
  const out: Compared = { cropMs: 0, compareMs: 0 };
  const first = planCrop(t.box, picture, ctx.cropRule);
  if (!first.ok) {
    m.faces.skippedSmall++;
    s.tracker.skipped(t.track);
    return out;
  }
  const track = t.track;
  const candidates: (() => Promise<Buffer | undefined>)[] = [
    ...CROP_RETRIES.map((rule) => async () => {
      const plan = planCrop(t.box, picture, { ...ctx.cropRule, ...rule });
      return plan.ok ? cropOf(picture, plan, ctx) : undefined;
    }),
    async () => (whole && fitsAsItIs(t.box) ? whole : undefined),
  ];
  let firstImage: Buffer | undefined;
  for (let step = 0; step < 2; step++) {
    const retry = step === 1;
    const t0 = performance.now();
    let image: Buffer | undefined;
    if (!retry) image = firstImage = await cropOf(picture, first, ctx);
    else {
      // The next candidate that applies to this frame.
      while (!image && (track.retries ?? 0) < candidates.length) {
        image = await candidates[track.retries ?? 0]();
        if (!image) track.retries = (track.retries ?? 0) + 1;
      }
    }
    out.cropMs += performance.now() - t0;
    if (!image) break;
    if (!ctx.budget.take()) {
      m.faces.skippedBudget++;
      return out;
    }
    if (retry) m.faces.retried++;
    const t1 = performance.now();
    const result = await apiCall(ctx, s, 'compare', () => ctx.vision.compareWithCollection(ctx.o.collectionId, image, { maxResults: maxResultsFor(ctx) }));
    out.compareMs += performance.now() - t1;
    if (result.ok) {
      if (retry) m.faces.recovered++;
      m.faces.compared++;
      return { ...out, verdict: judge(result.value.target.faces, ctx), face: image };
    }
    // A failed call (not a missed face) is left for the next sample.
    if (!result.noFace) return out;
    if (retry) track.retries = (track.retries ?? 0) + 1;
    else m.faces.notFoundByCompare++;
  }
  m.faces.missedAll++;
  if ((track.retries ?? 0) < candidates.length) return out;
  m.faces.notComparable++;
  return { ...out, verdict: { kind: 'unknown', score: null }, face: firstImage };
}

/** The verdict on a compare's faces: grouped by person (without people, the best face at the threshold, as ever). */
function judge(faces: readonly CollectionMatch[], ctx: AnalysisContext): Verdict {
  const v = personVerdict(faces.map((f) => ({ face_id: f.faceId, score: f.score })), ctx.people(), { threshold: ctx.o.threshold });
  if (v.kind === 'person') return { kind: 'match', faceId: v.face_id, score: v.score, personId: v.person_id };
  if (v.kind === 'face') return { kind: 'match', faceId: v.face_id, score: v.score };
  return { kind: 'unknown', score: v.score, ...(v.reason ? { reason: v.reason } : {}), ...(v.closest ? { closest: v.closest } : {}) };
}

/**
 * Faces each compare asks for: with people, enough for every face of theirs (and not-face) on top
 * of the option, so that a person passed over for a not-face leaves the next candidate in view.
 */
function maxResultsFor(ctx: AnalysisContext): number {
  const people = ctx.people();
  return people.size === 0 ? ctx.o.maxResults : Math.min(MAX_RESULTS, ctx.o.maxResults + people.faceCount);
}

function cropOf(picture: Picture, plan: Extract<ReturnType<typeof planCrop>, { ok: true }>, ctx: AnalysisContext): Promise<Buffer> {
  return cropToJpeg(picture, plan.region, { width: plan.width, height: plan.height }, { quality: ctx.o.jpegQuality });
}

/** The index of the largest face of a sample: the one the service takes from a whole frame. */
function mostProminent(boxes: readonly Box[]): number {
  let best = -1;
  let area = -1;
  boxes.forEach((b, i) => {
    const a = (b.right - b.left) * (b.bottom - b.top);
    if (a > area) [best, area] = [i, a];
  });
  return best;
}

/**
 * track -> events: an `arrived` as a visit starts (whatever the cooldown; sent at once, so it comes
 * before the visit can end), one match per someone (a person, else a face_id) per cooldown, one
 * unknown per track. Muted people are counted instead; a track once matched never turns into a stranger.
 */
async function decide(t: TrackedFace, v: Verdict, s: StreamState, ctx: AnalysisContext, snapshot: Buffer, face: Buffer, arrival: number): Promise<MatchEvent | UnknownEvent | undefined> {
  const track = t.track;
  const counters = s.meter.counters;
  if (!track.verdict) counters.faces.decided++;
  const wasMatched = track.verdict?.kind === 'match';
  const wasStranger = track.verdict?.kind === 'unknown' && track.visitorId === undefined;
  // A known person seen at a bad angle on a recheck stays known: only a match replaces a match.
  s.tracker.compared(track, v.kind === 'unknown' && wasMatched ? track.verdict! : v, performance.now());
  const base = {
    location: t.box,
    room: ctx.o.roomId,
    stream_id: s.streamId,
    ...(ctx.o.labels.has(s.streamId) ? { stream_label: ctx.o.labels.get(s.streamId) } : {}),
    track: track.id,
    time: new Date().toISOString(),
    snapshot,
    face,
    quality: track.quality!,
    latency_ms: 0,
  };
  const now = Date.now();
  const arrive = (who: Identity, label: string | null, score: number | null): void => {
    // The visit began when this face was first seen, though its verdict comes only now.
    const visit = ctx.presence.arrive(who, label, s.streamId, epochOf(track.lastSeen), epochOf(track.firstSeen), Date.now());
    if (!visit) return;
    counters.events.arrived++;
    ctx.emit({ ...base, event: 'arrived', visit_id: visit.visitId, kind: visit.kind, ...identityFields(who, label), label, score, arrived_at: new Date(visit.arrivedAt).toISOString(), latency_ms: Math.round(performance.now() - arrival) });
  };
  const cooldownKey = (id: string): string => (ctx.o.cooldownScope === 'room' ? id : `${s.streamId}\u0000${id}`);
  if (v.kind === 'match') {
    // A person removed since the compare: their face is judged as a face again.
    const person = v.personId !== undefined ? ctx.people().person(v.personId) : undefined;
    const key = cooldownKey(person?.person_id ?? v.faceId);
    if (ctx.muted(v.faceId, person)) {
      if (ctx.cooldown.allow(key, performance.now())) counters.events.muted++;
      return undefined;
    }
    // A face of a person is that person, never a visitor (the book lets go of it); without people,
    // people are the faces named in labels and any other face the watcher enrolled is a visitor.
    if (person) {
      ctx.visitors?.drop(v.faceId);
      track.visitorId = undefined;
    }
    const visitor = !person && ctx.visitors?.has(v.faceId) && !ctx.o.labels.has(v.faceId);
    // The stranger this track was taken for is someone known after all (compared again on a better sample).
    if (wasStranger) {
      const ended = ctx.presence.end({ streamId: s.streamId, track: track.id });
      if (ended) ctx.ended(ended);
    }
    if (visitor) track.visitorId = v.faceId;
    const label = person ? person.name : (ctx.o.labels.get(v.faceId) ?? null);
    arrive(person ? { personId: person.person_id, faceId: v.faceId } : visitor ? { visitorId: v.faceId } : { faceId: v.faceId }, label, v.score);
    if (!ctx.cooldown.allow(key, performance.now())) return undefined;
    if (!visitor) return { event: 'match', face_id: v.faceId, ...(person ? { person_id: person.person_id, name: person.name } : {}), label, score: v.score, ...base };
    const record = ctx.visitors!.visit(v.faceId, now);
    track.unknownEmitted = true;
    return { event: 'unknown', score: v.score, visitor_id: v.faceId, first_visit: false, visits: record?.visits ?? 1, ...base };
  }
  if (track.unknownEmitted || wasMatched) return undefined;
  track.unknownEmitted = true;
  if (v.score === null) {
    arrive({ streamId: s.streamId, track: track.id }, null, null);
    return { event: 'unknown', score: null, reason: 'not_comparable', ...base };
  }
  const near = { ...(v.reason ? { reason: v.reason } : {}), ...(v.closest ? { closest: v.closest } : {}) };
  // A stranger the service could compare: remembered (with rememberVisitors) under the face_id of this crop.
  const enrolled = ctx.visitors ? await enrolVisitor(ctx, s, face, now) : undefined;
  if (!enrolled) {
    arrive({ streamId: s.streamId, track: track.id }, null, v.score);
    return { event: 'unknown', score: v.score, ...near, ...base };
  }
  track.visitorId = enrolled.visitorId;
  arrive({ visitorId: enrolled.visitorId }, null, v.score);
  ctx.cooldown.allow(cooldownKey(enrolled.visitorId), performance.now());
  return { event: 'unknown', score: v.score, ...near, visitor_id: enrolled.visitorId, first_visit: true, visits: 1, ...base };
}

async function enrolVisitor(ctx: AnalysisContext, s: StreamState, face: Buffer, now: number) {
  if (!ctx.visitors!.enrolling) return undefined;
  s.meter.counters.api.enrol++;
  return ctx.visitors!.enrol(face, now);
}

/** Those on a visit whose tracks are in view on this stream stay here, as of the frame they were last seen in. */
function markPresent(s: StreamState, ctx: AnalysisContext): void {
  for (const track of s.tracker.tracks) {
    if (track.missed !== 0) continue;
    const now = epochOf(track.lastSeen);
    if (track.visitorId !== undefined) {
      ctx.presence.seen({ visitorId: track.visitorId }, s.streamId, now);
      ctx.visitors?.seen(track.visitorId, now);
    } else if (track.verdict?.kind === 'match') {
      const { faceId, personId } = track.verdict;
      ctx.presence.seen(personId !== undefined ? { personId, faceId } : { faceId }, s.streamId, now);
    }
    else if (track.verdict?.kind === 'unknown') ctx.presence.seen({ streamId: s.streamId, track: track.id }, s.streamId, now);
  }
}

/**
 * With `tracks`: every face in view on the stream at this sample, with its verdict so far, and a
 * still of the frame when one is due (`stillEverySeconds`; a still that cannot be made is left out).
 */
async function reportTracks(sample: Sample, s: StreamState, ctx: AnalysisContext, stillAllowed: boolean): Promise<void> {
  if (!ctx.tracks) return;
  let still: Buffer | undefined;
  const every = ctx.o.stillEveryMs;
  if (stillAllowed && every > 0 && (s.stillAt === undefined || sample.arrival - s.stillAt >= every)) {
    s.stillAt = sample.arrival;
    still = await stillOf(sample.picture).catch(() => undefined);
  }
  const { picture } = sample;
  // A sample's verdicts can come after a newer sample was told (its compare, or its still, took
  // longer): the tracker then holds the newer sample's boxes, so the event is dated by the newer one
  // and a page never sees the boxes step back in time.
  if (!s.tracksFrame || sample.arrival > s.tracksFrame.at) s.tracksFrame = { at: sample.arrival, time: new Date(epochOf(sample.arrival)).toISOString() };
  ctx.tracks({
    event: 'tracks',
    room: ctx.o.roomId,
    stream_id: s.streamId,
    ...(ctx.o.labels.has(s.streamId) ? { stream_label: ctx.o.labels.get(s.streamId) } : {}),
    frame_time: s.tracksFrame.time,
    width: picture.width,
    height: picture.height,
    tracks: tracksInView(s.tracker.tracks, ctx.people(), ctx.o.labels),
    ...(still ? { still } : {}),
    time: new Date().toISOString(),
  });
}

/** A performance.now() time as epoch ms on the wall clock that presence and the events use. */
export function epochOf(perfMs: number): number {
  return Date.now() - (performance.now() - perfMs);
}

function boxOf(t: TrackedFace, ctx: AnalysisContext): { location: Box; label?: string; color?: string } {
  const v: Track['verdict'] = t.track.verdict;
  if (t.track.visitorId !== undefined) return { location: t.box, label: `visitor ${t.track.visitorId.slice(0, 8)}`, color: '#ff851b' };
  if (v?.kind === 'match') {
    const name = v.personId !== undefined ? ctx.people().person(v.personId)?.name : undefined;
    return { location: t.box, label: name ?? ctx.o.labels.get(v.faceId) ?? v.faceId.slice(0, 8), color: '#2ecc40' };
  }
  if (v?.kind === 'unknown') return { location: t.box, label: 'unknown', color: '#ff4136' };
  return { location: t.box, color: '#aaaaaa' };
}

function round<T extends Record<string, number>>(o: T): T {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 10) / 10])) as T;
}

type CallResult<T> = { ok: true; value: T } | { ok: false; noFace: boolean };

async function apiCall<T>(ctx: AnalysisContext, s: StreamState, kind: 'detect' | 'compare', fn: () => Promise<T>): Promise<CallResult<T>> {
  const api = s.meter.counters.api;
  api[kind]++;
  try {
    const value = await fn();
    ctx.apiSucceeded();
    return { ok: true, value };
  } catch (err) {
    const e = err as { status?: number; code?: string };
    if (kind === 'compare' && e?.status === 400 && (e.code === 'face_not_found' || e.code === 'face_size_out_of_range')) {
      return { ok: false, noFace: true };
    }
    api.failed++;
    ctx.apiFailed(err, s.streamId);
    return { ok: false, noFace: false };
  }
}
