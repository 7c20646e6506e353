import { CallBudget } from '../../shared/watch/budget';
import type { Picture } from '../../shared/decode';
import { grayThumbnail, thumbnailDifference } from '../../shared/picture/gray';
import { ChangeGate } from '../../shared/watch/change-gate';
import { Cooldown } from '../../shared/watch/cooldown';
import { API_FACE_MAX, API_FACE_MIN, planCrop } from '../../shared/watch/crop-geometry';
import { iou, type Box } from '../../shared/watch/geometry';
import { LatencyWindow } from '../../shared/watch/latency';
import { LatestWins } from '../../shared/watch/latest-wins';
import { isQuotaExhausted, QuotaPause } from '../../shared/watch/quota-pause';
import { FrameSampler } from '../../shared/watch/sampler';
import { Tracker } from '../../shared/watch/tracker';

const box = (left: number, top: number, size: number, height = size): Box => ({ left, top, right: left + size, bottom: top + height });

describe('FrameSampler', () => {
  test('15 fps in, 2 fps out: every 45000 ticks one sample, on the frames own clock', () => {
    const s = new FrameSampler(2);
    const due: number[] = [];
    for (let i = 0; i < 150; i++) if (s.due(i * 6000)) due.push(i);
    // 10 s of video at 2 fps
    expect(due.length).toBe(20);
    expect(due.slice(0, 4)).toEqual([0, 8, 15, 23]);
  });

  test('a timestamp going backwards (a new stream after a rejoin) is due at once', () => {
    const s = new FrameSampler(1);
    expect(s.due(900_000)).toBe(true);
    expect(s.due(906_000)).toBe(false);
    expect(s.due(1000)).toBe(true);
    expect(s.due(7000)).toBe(false);
  });

  test('after a gap the rhythm restarts from the frame after it, not with a burst', () => {
    const s = new FrameSampler(2);
    expect(s.due(0)).toBe(true);
    expect(s.due(900_000)).toBe(true);
    expect(s.due(906_000)).toBe(false);
    expect(s.due(945_000)).toBe(true);
  });
});

describe('LatestWins', () => {
  test('while a job runs, only the newest value waits; older ones are dropped and counted', async () => {
    const seen: number[] = [];
    const dropped: number[] = [];
    let release!: () => void;
    const slot = new LatestWins<number>(
      async (v) => {
        seen.push(v);
        if (v === 1) await new Promise<void>((r) => (release = r));
      },
      (v) => dropped.push(v),
    );
    slot.offer(1);
    expect(slot.busy).toBe(true);
    for (let i = 2; i <= 100; i++) slot.offer(i);
    release();
    await slot.idle();
    expect(seen).toEqual([1, 100]);
    expect(dropped).toHaveLength(98);
    expect(slot.dropped).toBe(98);
  });

  test('a failing job does not stop the next; close() waits for the running job and refuses more', async () => {
    const seen: number[] = [];
    const slot = new LatestWins<number>(async (v) => {
      seen.push(v);
      await new Promise((r) => setTimeout(r, 5));
      if (v === 1) throw new Error('boom');
    });
    slot.offer(1);
    slot.offer(2);
    await slot.idle();
    slot.offer(3);
    await slot.close();
    slot.offer(4);
    await slot.idle();
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('ChangeGate', () => {
  const flat = (v: number) => new Uint8Array(768).fill(v);
  test('first sample passes; a sample close to the last analysed one is held back; drift adds up', () => {
    const gate = new ChangeGate(4);
    expect(gate.changed(flat(100))).toBe(true);
    gate.accept(flat(100));
    expect(gate.changed(flat(103))).toBe(false);
    expect(gate.changed(flat(104))).toBe(false);
    expect(gate.changed(flat(105))).toBe(true);
    // held-back samples do not move the reference: a slow drift still gets through
    expect(gate.changed(flat(110))).toBe(true);
  });

  test('threshold 0 lets every sample through; thumbnailDifference is the mean of |a-b|', () => {
    const gate = new ChangeGate(0);
    gate.accept(flat(1));
    expect(gate.changed(flat(1))).toBe(true);
    expect(thumbnailDifference(Uint8Array.from([0, 10, 20, 30]), Uint8Array.from([10, 0, 20, 50]))).toBe(10);
  });
});

describe('planCrop', () => {
  const frame = { width: 1280, height: 720 };
  const faceSides = (plan: ReturnType<typeof planCrop>, face: Box) => {
    if (!plan.ok) throw new Error(plan.reason);
    return [(face.right - face.left) * plan.scale, (face.bottom - face.top) * plan.scale];
  };

  test.each([
    ['small face scaled up', box(600, 300, 60, 70)],
    ['mid face', box(600, 300, 150, 160)],
    ['large face scaled down', box(400, 100, 400, 450)],
    ['tall narrow face', box(600, 300, 100, 200)],
  ])('%s: both sides of the face land in 120..280', (_name, face) => {
    const plan = planCrop(face, frame);
    for (const side of faceSides(plan, face)) {
      expect(side).toBeGreaterThanOrEqual(API_FACE_MIN);
      expect(side).toBeLessThanOrEqual(API_FACE_MAX);
    }
  });

  test('the region keeps a margin around the face and stays inside the frame', () => {
    const plan = planCrop(box(10, 10, 100), frame);
    if (!plan.ok) throw new Error('no plan');
    expect(plan.region).toEqual({ left: 0, top: 0, right: 170, bottom: 170 });
    expect(plan.width).toBe(Math.round(170 * plan.scale));
    const mid = planCrop(box(600, 300, 100), frame);
    if (!mid.ok) throw new Error('no plan');
    expect(mid.region).toEqual({ left: 540, top: 240, right: 760, bottom: 460 });
  });

  test('a face below minFaceSize is skipped as too small; one too oblong to fit the range as bad_shape', () => {
    expect(planCrop(box(0, 0, 30), frame)).toEqual({ ok: false, reason: 'too_small' });
    expect(planCrop(box(0, 0, 30), frame, { margin: 0.5, minFaceSize: 20, targetSide: 200 }).ok).toBe(true);
    expect(planCrop(box(0, 0, 60, 200), frame)).toEqual({ ok: false, reason: 'bad_shape' });
  });
});

describe('Tracker', () => {
  test('a face that stays is one track, compared once; it is compared again after recheckMs', () => {
    const tr = new Tracker({ recheckMs: 10_000 });
    const [a] = tr.update([{ box: box(100, 100, 120) }], 0);
    expect(a.compare).toBe('new');
    tr.compared(a.track, { kind: 'match', faceId: 'f1', score: 0.9 }, 0);
    const [b] = tr.update([{ box: box(108, 104, 122) }], 500);
    expect(b.track).toBe(a.track);
    expect(b.compare).toBeUndefined();
    const [c] = tr.update([{ box: box(110, 104, 122) }], 10_500);
    expect(c.compare).toBe('recheck');
  });

  test('an unknown track is compared again once it has grown, not before', () => {
    const tr = new Tracker();
    const [a] = tr.update([{ box: box(100, 100, 100) }], 0);
    tr.compared(a.track, { kind: 'unknown', score: 0.1 }, 0);
    expect(tr.update([{ box: box(95, 95, 110) }], 500)[0].compare).toBeUndefined();
    const [c] = tr.update([{ box: box(80, 80, 130) }], 1000);
    expect(c.track).toBe(a.track);
    expect(c.compare).toBe('grown');
  });

  test('a compare that did not finish is asked for again (pending) and keeps the gate open', () => {
    const tr = new Tracker();
    tr.update([{ box: box(100, 100, 100) }], 0);
    expect(tr.pending).toBe(true);
    const [b] = tr.update([{ box: box(100, 100, 100) }], 500);
    expect(b.compare).toBe('pending');
    tr.compared(b.track, { kind: 'match', faceId: 'x', score: 1 }, 500);
    expect(tr.pending).toBe(false);
  });

  test('a face too small to compare is not asked for again until it grows', () => {
    const tr = new Tracker();
    const [a] = tr.update([{ box: box(100, 100, 30) }], 0);
    tr.skipped(a.track);
    expect(tr.pending).toBe(false);
    expect(tr.update([{ box: box(100, 100, 31) }], 500)[0].compare).toBeUndefined();
    expect(tr.update([{ box: box(100, 100, 45) }], 1000)[0].compare).toBe('grown');
  });

  test('two faces are two tracks; one missed sample is tolerated, two end the track', () => {
    const tr = new Tracker({ maxMissed: 1 });
    const first = tr.update([{ box: box(0, 0, 100) }, { box: box(300, 0, 100) }], 0);
    expect(new Set(first.map((f) => f.track.id)).size).toBe(2);
    for (const f of first) tr.compared(f.track, { kind: 'unknown', score: 0 }, 0);
    expect(tr.pending).toBe(false);
    tr.update([{ box: box(0, 0, 100) }], 500);
    expect(tr.update([{ box: box(300, 0, 100) }, { box: box(0, 0, 100) }], 1000).map((f) => f.track.id).sort()).toEqual(first.map((f) => f.track.id).sort());
    tr.update([], 1500);
    tr.update([], 2000);
    expect(tr.tracks).toHaveLength(0);
    expect(tr.update([{ box: box(0, 0, 100) }], 2500)[0].compare).toBe('new');
  });

  test('a track missed once, then held back by the gate, ends after lostAfterMs: someone coming back later is new', () => {
    const tr = new Tracker({ lostAfterMs: 2000 });
    const [a] = tr.update([{ box: box(0, 0, 100) }], 0);
    tr.compared(a.track, { kind: 'match', faceId: 'f', score: 1 }, 0);
    tr.update([], 500);
    // within lostAfterMs the same place continues the track (a detector's miss)
    expect(tr.update([{ box: box(0, 0, 100) }], 1000)[0].track).toBe(a.track);
    tr.update([], 1500);
    tr.touch(9000);
    const [b] = tr.update([{ box: box(0, 0, 100) }], 10_000);
    expect(b.track).not.toBe(a.track);
    expect(b.compare).toBe('new');
  });

  test('someone else in the same place (a different look) is a new track; a brightness shift is not', () => {
    const tr = new Tracker({ maxLookChange: 30 });
    const look = (f: (i: number) => number) => Uint8Array.from({ length: 256 }, (_, i) => f(i));
    const faceA = look((i) => (i % 16) * 10);
    const brighter = look((i) => (i % 16) * 10 + 40);
    const faceB = look((i) => 150 - (i % 16) * 10);
    const [a] = tr.update([{ box: box(0, 0, 100), look: faceA }], 0);
    expect(tr.update([{ box: box(0, 0, 100), look: brighter }], 500)[0].track).toBe(a.track);
    const [b] = tr.update([{ box: box(2, 0, 100), look: faceB }], 1000);
    expect(b.track).not.toBe(a.track);
    expect(b.compare).toBe('new');
  });

  test('iou of identical boxes is 1, of disjoint ones 0', () => {
    expect(iou(box(0, 0, 10), box(0, 0, 10))).toBe(1);
    expect(iou(box(0, 0, 10), box(20, 0, 10))).toBe(0);
    expect(iou(box(0, 0, 10), box(5, 0, 10))).toBeCloseTo(50 / 150);
  });
});

describe('Cooldown', () => {
  test('one event per key per cooldown; other keys are independent', () => {
    const c = new Cooldown(60_000);
    expect(c.allow('A', 0)).toBe(true);
    expect(c.allow('A', 59_999)).toBe(false);
    expect(c.allow('B', 1)).toBe(true);
    expect(c.allow('A', 60_000)).toBe(true);
  });
});

describe('CallBudget', () => {
  test('a token bucket: the burst, then the rate; when empty nothing is taken', () => {
    let now = 0;
    const b = new CallBudget(2, { capacity: 3, now: () => now });
    expect(b.take(3)).toBe(true);
    expect(b.take()).toBe(false);
    now = 499;
    expect(b.take()).toBe(false);
    now = 500;
    expect(b.take()).toBe(true);
    now = 10_000;
    expect(b.available).toBe(3);
    expect(b.take(4)).toBe(false);
    expect(b.available).toBe(3);
  });

  test('Infinity means no limit', () => {
    const b = new CallBudget(Number.POSITIVE_INFINITY);
    for (let i = 0; i < 1000; i++) expect(b.take()).toBe(true);
  });
});

describe('QuotaPause', () => {
  test('a spent quota pauses, longer each time in a row up to the cap; success resets', () => {
    const q = new QuotaPause(1000, 3000);
    expect(q.paused(0)).toBe(false);
    expect(q.trip(0)).toBe(1000);
    expect(q.paused(999)).toBe(true);
    expect(q.paused(1000)).toBe(false);
    expect(q.trip(1000)).toBe(2000);
    expect(q.trip(3000)).toBe(3000);
    q.succeeded();
    expect(q.trip(10_000)).toBe(1000);
  });

  test('isQuotaExhausted: a 429 not worth retrying, not a throttling 429', () => {
    expect(isQuotaExhausted({ status: 429, retryable: false })).toBe(true);
    expect(isQuotaExhausted({ status: 429, retryable: true })).toBe(false);
    expect(isQuotaExhausted({ status: 500, retryable: false })).toBe(false);
    expect(isQuotaExhausted(undefined)).toBe(false);
  });
});

describe('grey thumbnails of a region and LatencyWindow', () => {
  test('grayThumbnail of a region averages the Y plane of I420 and the luma of RGB(A) over each cell, on one scale', () => {
    const width = 8;
    const height = 8;
    const picture = (format: Picture['format'], data: Uint8Array): Picture => ({ width, height, format, data, timestamp: 0 });
    const y = new Uint8Array(width * height * 1.5);
    for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) y[r * width + c] = c < 4 ? 0 : 200;
    expect([...grayThumbnail(picture('i420', y), 2, 1, { left: 0, top: 0, right: 8, bottom: 8 })]).toEqual([0, 200]);
    // White is Y 235 and black Y 16 in the limited range that I420 from a camera uses.
    const rgba = new Uint8Array(width * height * 4).fill(255);
    expect([...grayThumbnail(picture('rgba', rgba), 2, 2, { left: 2, top: 2, right: 6, bottom: 6 })]).toEqual([235, 235, 235, 235]);
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0; i < rgb.length; i += 3) if ((i / 3) % width >= 4) rgb.fill(255, i, i + 3);
    expect([...grayThumbnail(picture('rgb', rgb), 2, 1, { left: 0, top: 0, right: 8, bottom: 8 })]).toEqual([16, 235]);
  });

  test('percentiles by nearest rank over the last values only', () => {
    const w = new LatencyWindow(100);
    for (let i = 1; i <= 200; i++) w.add(i);
    expect(w.percentile(50)).toBe(150);
    expect(w.percentile(95)).toBe(195);
    expect(w.summary().count).toBe(200);
  });
});
