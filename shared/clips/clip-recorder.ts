import { VIDEO_CLOCK, type EncodedFrame, type VideoCodec } from '../frames/types';
import type { ArrivedEvent, MatchEvent, PresentEntry, UnknownEvent, VisitKind } from '../watch/events';
import { writeClipFile } from './clip-file';
import type { ClipEndReason, ClipErrorCode, ClipEvent, ClipTrigger } from './events';
import { muxClip } from './mux';
import { continues, PreRoll, type HeldFrame, type PreRollStats } from './pre-roll';

/** What a recorder needs to know; times in ms. */
export interface ClipSettings {
  /** The folder clips are written to (checked by checkPrivateFolder before the watch starts). */
  folder: string;
  preRollMs: number;
  postRollMs: number;
  maxClipMs: number;
  on: ReadonlySet<ClipTrigger>;
  room: string;
}

/** What the recorder asks of its watcher. */
export interface ClipHooks {
  /** The visits under way (their last_seen extends a clip). */
  present(): readonly PresentEntry[];
  /** A clip is written, or could not be made. */
  emit(event: ClipEvent): void;
  /** A stream's pre-roll let frames go for its bytes bound (`maxBytes`), the first time (its key frames are too far apart). */
  overBound?(streamId: string, maxBytes: number): void;
}

/**
 * A face event reaches the recorder some time after its frame came (decode, detect, compare): the
 * pre-roll keeps this much more than `preRollMs` so the clip can still start `preRollMs` before that
 * frame. Likewise a clip's end waits for the analysis of the frames past it, but no longer than this.
 */
const ANALYSIS_SLACK_MS = 3000;
/** The bitrate a pre-roll is sized for (2 Mbit/s), in bytes per ms: a camera's main stream at 1080p, or 720p at a high quality. */
const PRE_ROLL_BYTES_PER_MS = 2_000_000 / 8 / 1000;

/**
 * Bytes a stream's pre-roll may hold: the seconds it keeps (the pre-roll and the analysis' slack) at
 * 2 Mbit/s; 2 MB for the default 5 s, 8.25 MB for the longest, 30 s. The memory follows the pre-roll
 * asked for, and a camera whose key frames are further apart than that cannot grow it.
 */
export function preRollMaxBytes(preRollMs: number): number {
  return Math.ceil((preRollMs + ANALYSIS_SLACK_MS) * PRE_ROLL_BYTES_PER_MS);
}
/** A stop writes the clips in flight within this, else removes them. */
const STOP_WRITE_MS = 4500;

type FaceEvent = ArrivedEvent | MatchEvent | UnknownEvent;

interface OpenClip {
  key: string;
  streamId: string;
  visitId?: string;
  kind?: VisitKind;
  trigger: ClipTrigger;
  who: Pick<ClipEvent, 'person_id' | 'name' | 'face_id' | 'visitor_id' | 'track' | 'label'>;
  frames: HeldFrame[];
  /** Wall time of the first frame's arrival, and the end as known now (epoch ms). */
  firstAt: number;
  deadline: number;
  codec: VideoCodec;
  width?: number;
  height?: number;
}

/**
 * Clips of visits, cut from each stream's encoded frames as they came: a pre-roll per stream, and
 * per visit and stream one clip from `preRollMs` before the trigger's frame to `postRollMs` after
 * the visit's last sight, at most `maxClipMs`. Nothing is decoded. Owns its pre-rolls and the writes
 * in flight; close() writes or removes what is open.
 */
export class ClipRecorder {
  readonly #s: ClipSettings;
  readonly #hooks: ClipHooks;
  readonly #rolls = new Map<string, PreRoll>();
  readonly #open = new Map<string, OpenClip>();
  /** Visits (per stream) that have had their clip, while the visit goes on. */
  readonly #done = new Set<string>();
  readonly #writing = new Set<Promise<void>>();
  /** Per stream, the arrival of the newest frame whose analysis is over (epoch ms): how far its visits' last sights are known. */
  readonly #analysedTo = new Map<string, number>();
  #closed = false;
  #abandoned = false;

  constructor(settings: ClipSettings, hooks: ClipHooks) {
    this.#s = settings;
    this.#hooks = hooks;
  }

  /** One encoded frame of a stream, as it came (`at`: its arrival, epoch ms). */
  frame(streamId: string, frame: EncodedFrame, at = Date.now()): void {
    if (this.#closed) return;
    let roll = this.#rolls.get(streamId);
    if (!roll) this.#rolls.set(streamId, (roll = new PreRoll(this.#s.preRollMs + ANALYSIS_SLACK_MS, preRollMaxBytes(this.#s.preRollMs))));
    const dropped = roll.dropped;
    roll.push(frame, at);
    if (dropped === 0 && roll.dropped > 0) this.#hooks.overBound?.(streamId, roll.stats.max_bytes);
    for (const clip of this.#open.values()) {
      if (clip.streamId !== streamId) continue;
      if (frame.codec !== clip.codec || (frame.isKeyframe && (frame.width !== clip.width || frame.height !== clip.height)) || !continues(clip.frames.at(-1)!, frame, at)) this.#finish(clip, 'stream_changed');
      else if (at - clip.firstAt >= this.#s.maxClipMs) this.#finish(clip, 'max_clip');
      else if (this.#over(clip, at)) this.#finish(clip, 'post_roll');
      // Frames past the end as known now are kept until the analysis tells whether the visit went on.
      else clip.frames.push({ frame, at });
    }
  }

  /** The analysis of a stream's frame that came at `at` (epoch ms) is over: the visits' last sights up to it are known. */
  analysed(streamId: string, at: number): void {
    if (at > (this.#analysedTo.get(streamId) ?? 0)) this.#analysedTo.set(streamId, at);
  }

  /** A stream left or starts over (a rejoin): its clips end with the frames they have, its pre-roll is emptied. */
  streamEnded(streamId: string): void {
    this.#rolls.get(streamId)?.clear();
    this.#analysedTo.delete(streamId);
    for (const clip of [...this.#open.values()]) if (clip.streamId === streamId) this.#finish(clip, 'stream_left');
  }

  /** A face event: starts the clip of its visit on its stream when the trigger is on and none is made yet. */
  face(e: FaceEvent): void {
    if (this.#closed || !this.#s.on.has(e.event)) return;
    const visit = e.event === 'arrived' ? { visit_id: e.visit_id, kind: e.kind } : this.#visitOf(e);
    const who = whoOf(e);
    const key = `${e.stream_id}\u0000${visit?.visit_id ?? JSON.stringify(who)}`;
    if (this.#open.has(key) || this.#done.has(key)) return;
    const anchor = Date.parse(e.time) - e.latency_ms;
    const base = { streamId: e.stream_id, visitId: visit?.visit_id, kind: visit?.kind, trigger: e.event, who };
    const held = this.#rolls.get(e.stream_id)?.since(anchor, this.#s.preRollMs) ?? [];
    if (held.length === 0) {
      this.#done.add(key);
      this.#hooks.emit(this.#event(base, { error: 'no_key_frame' }));
      return;
    }
    const first = held[0].frame;
    const clip: OpenClip = { key, ...base, frames: held, firstAt: held[0].at, deadline: anchor + this.#s.postRollMs, codec: first.codec, width: first.width, height: first.height };
    this.#open.set(key, clip);
  }

  /** Called every few hundred ms: clips past their end are written even when no frame comes; finished visits are forgotten. */
  tick(now = Date.now()): void {
    for (const clip of [...this.#open.values()]) {
      if (now - clip.firstAt >= this.#s.maxClipMs) this.#finish(clip, 'max_clip');
      else if (this.#over(clip, now)) this.#finish(clip, 'post_roll');
    }
    const here = new Set(this.#hooks.present().map((p) => p.visit_id));
    for (const key of this.#done) if (!here.has(key.slice(key.indexOf('\u0000') + 1))) this.#done.delete(key);
  }

  /** Each stream's pre-roll: what it holds, its bound and what it dropped. */
  stats(): Record<string, PreRollStats> {
    return Object.fromEntries([...this.#rolls].map(([id, roll]) => [id, roll.stats]));
  }

  /** Writes the clips in flight (ended at the stop) within 5 s, else removes them; takes no more frames. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const clip of [...this.#open.values()]) this.#finish(clip, 'stopped');
    this.#rolls.clear();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WRITE_MS)));
    await Promise.race([Promise.all([...this.#writing]), late]);
    clearTimeout(timer);
    // Whatever is still being written is removed, not named as a clip.
    this.#abandoned = true;
  }

  // Past the end once the analysis has looked beyond it (the visit was not seen again), or, when
  // the analysis lags (a spent quota, a slow service), ANALYSIS_SLACK_MS after it.
  #over(clip: OpenClip, now: number): boolean {
    const end = this.#extended(clip);
    return now > end && ((this.#analysedTo.get(clip.streamId) ?? 0) > end || now > end + ANALYSIS_SLACK_MS);
  }

  // The visit goes on while it is seen: the clip ends postRollMs after its last sight.
  #extended(clip: OpenClip): number {
    const visit = clip.visitId ? this.#hooks.present().find((p) => p.visit_id === clip.visitId && p.stream_id === clip.streamId) : undefined;
    if (visit) clip.deadline = Math.max(clip.deadline, Date.parse(visit.last_seen) + this.#s.postRollMs);
    return clip.deadline;
  }

  #visitOf(e: MatchEvent | UnknownEvent): PresentEntry | undefined {
    return this.#hooks.present().find((p) => {
      if (e.event === 'match') return e.person_id ? p.person_id === e.person_id : p.face_id === e.face_id && !p.person_id;
      if (e.visitor_id) return p.visitor_id === e.visitor_id;
      return p.track === e.track && p.stream_id === e.stream_id;
    });
  }

  #finish(clip: OpenClip, ended: ClipEndReason): void {
    this.#open.delete(clip.key);
    // Frames kept while the end was not known yet go.
    const until = ended === 'max_clip' ? clip.firstAt + this.#s.maxClipMs : ended === 'post_roll' || ended === 'stopped' ? this.#extended(clip) : Infinity;
    const within = clip.frames.filter((h) => h.at <= until);
    if (within.length > 0) clip.frames = within;
    if (clip.visitId) this.#done.add(clip.key);
    const writing = this.#write(clip, ended)
      .catch(() => this.#hooks.emit(this.#event(clip, { error: 'write_failed' })))
      .finally(() => this.#writing.delete(writing));
    this.#writing.add(writing);
  }

  async #write(clip: OpenClip, ended: ClipEndReason): Promise<void> {
    let muxed;
    try {
      muxed = await muxClip(clip.frames.map((h) => h.frame));
    } catch {
      this.#hooks.emit(this.#event(clip, { error: 'mux_failed', ended }));
      return;
    }
    // Wall times from the stream's: anchored on the newest frame, as frames held since the stream's
    // start may have come in a burst (a join, a jitter buffer) and arrived later than they were sent.
    const last = clip.frames.at(-1)!;
    const start = new Date(Math.round(last.at - ((last.frame.timestamp - clip.frames[0].frame.timestamp) / VIDEO_CLOCK) * 1000));
    const name = `${start.toISOString().replace(/[:.]/g, '-')}-${safe(clip.streamId)}-${safe(clip.visitId ?? clip.trigger).slice(0, 8)}.${muxed.container}`;
    const written = await writeClipFile(this.#s.folder, name, muxed.data, () => !this.#abandoned);
    if ('error' in written) {
      this.#hooks.emit(this.#event(clip, { error: written.error, cause: written.cause, ended }));
      return;
    }
    this.#hooks.emit(
      this.#event(clip, {
        start: start.toISOString(),
        end: new Date(start.getTime() + muxed.durationS * 1000).toISOString(),
        duration_s: muxed.durationS,
        bytes: muxed.data.length,
        container: muxed.container,
        codec: muxed.codec,
        ...(muxed.width ? { width: muxed.width, height: muxed.height } : {}),
        path: written.path,
        ended,
      }),
    );
  }

  #event(clip: Pick<OpenClip, 'streamId' | 'visitId' | 'kind' | 'trigger' | 'who'>, rest: Partial<ClipEvent> & ({ error: ClipErrorCode } | { path: string })): ClipEvent {
    return { event: 'clip', room: this.#s.room, stream_id: clip.streamId, ...(clip.visitId ? { visit_id: clip.visitId } : {}), ...(clip.kind ? { kind: clip.kind } : {}), trigger: clip.trigger, ...clip.who, ...rest, time: new Date().toISOString() };
  }
}

/** Who a face event is of, as a clip event names them. */
function whoOf(e: FaceEvent): OpenClip['who'] {
  const out: OpenClip['who'] = { label: e.event === 'unknown' ? null : e.label };
  if (e.event !== 'unknown') {
    if (e.person_id) out.person_id = e.person_id;
    if (e.name !== undefined) out.name = e.name;
    if (e.face_id) out.face_id = e.face_id;
  }
  if (e.event !== 'match') {
    if (e.visitor_id) out.visitor_id = e.visitor_id;
    if (!e.visitor_id && !('face_id' in e && e.face_id)) out.track = e.track;
  }
  return out;
}

/** A name part safe in any file system. */
function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
