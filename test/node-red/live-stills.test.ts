import { MAX_PREVIEW_STREAMS, PREVIEW_EVERY_MS, StillPreviews } from '../../node-red/live-stills';
import type { LiveStill, LiveTracks } from '../../node-red/live-widget';

// The small copies of the stills a live node keeps in its widget's state (the Node-RED runtime's
// side, with real stills and Dashboard 2.0: test/node-red/live-hostile.test.ts). Here the copying is
// a function the test answers, to hold a copy half-made.

const tracks = (stream: string): LiveTracks => ({ event: 'tracks', stream_id: stream, frame_time: new Date().toISOString(), width: 640, height: 480, tracks: [] });
const jpeg = (n: number): Buffer => Buffer.from([0xff, 0xd8, n, 0xff, 0xd9]);

function previews(): { p: StillPreviews; published: LiveStill[][]; pending: { still: Buffer; done: (copy: Buffer | Error) => void }[] } {
  const published: LiveStill[][] = [];
  const pending: { still: Buffer; done: (copy: Buffer | Error) => void }[] = [];
  const p = new StillPreviews(
    (list) => published.push(list),
    (still) => new Promise<Buffer>((resolve, reject) => pending.push({ still, done: (copy) => (copy instanceof Error ? reject(copy) : resolve(copy)) })),
  );
  return { p, published, pending };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
const bytesOf = (s: LiveStill): number => Buffer.from(s.src.split(',')[1], 'base64')[2];

test(`a stream's copy is made again at most every ${PREVIEW_EVERY_MS / 1000} s, one at a time, each stream's latest still waiting its turn`, async () => {
  const { p, published, pending } = previews();
  p.offer(tracks('a'), jpeg(1));
  p.offer(tracks('b'), jpeg(2));
  p.offer(tracks('c'), jpeg(3));
  p.offer(tracks('b'), jpeg(4));
  expect(pending).toHaveLength(1);
  pending[0].done(jpeg(11));
  await settle();
  expect(published.at(-1)!.map((s) => [s.stream_id, bytesOf(s), s.width, s.height])).toEqual([['a', 11, 640, 480]]);
  // c and b's latest waited while a's copy was made, in the order they came.
  expect(pending.map((x) => x.still[2])).toEqual([1, 3]);
  pending[1].done(jpeg(13));
  await settle();
  expect(pending.map((x) => x.still[2])).toEqual([1, 3, 4]);
  pending[2].done(jpeg(14));
  await settle();
  expect(published.at(-1)!.map((s) => [s.stream_id, bytesOf(s)])).toEqual([['a', 11], ['c', 13], ['b', 14]]);
  // Within the interval: no new copy of a.
  p.offer(tracks('a'), jpeg(5));
  await settle();
  expect(pending).toHaveLength(3);
});

test(`at most ${MAX_PREVIEW_STREAMS} streams; a copy begun before clear() is not kept, and clear() tells the pages there are none`, async () => {
  const { p, published, pending } = previews();
  for (let n = 0; n < MAX_PREVIEW_STREAMS + 2; n++) {
    p.offer(tracks(`s${n}`), jpeg(n));
    pending[n].done(jpeg(20 + n));
    await settle();
  }
  expect(published.at(-1)!.map((s) => s.stream_id)).toEqual(['s2', 's3', 's4', 's5']);
  p.offer(tracks('late'), jpeg(9));
  const begun = pending.at(-1)!;
  p.clear();
  expect(published.at(-1)).toEqual([]);
  begun.done(jpeg(99));
  await settle();
  expect(published.at(-1)).toEqual([]);
  // After clear() every stream may be copied again at once.
  p.offer(tracks('s5'), jpeg(5));
  expect(pending.at(-1)!.still[2]).toBe(5);
});

test('a still that cannot be copied gets no copy, and the next one is copied', async () => {
  const { p, published, pending } = previews();
  p.offer(tracks('a'), jpeg(1));
  pending[0].done(new Error('damaged'));
  p.offer(tracks('b'), jpeg(2));
  await settle();
  expect(published).toEqual([]);
  expect(pending).toHaveLength(2);
  pending[1].done(jpeg(12));
  await settle();
  expect(published.at(-1)!.map((s) => s.stream_id)).toEqual(['b']);
});
