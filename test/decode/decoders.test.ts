import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDecoder, decoderAvailability, DecoderUnavailableError, FfmpegDecoder, ffmpegDecodeArgs, type FrameDecoder, type Picture } from '../../shared/decode';
import { showinfoCanSkipChecksums } from '../../shared/decode/ffmpeg';
import { PictureInput } from '../../shared/decode/picture-input';
import { DECODERS_PER_WORKER, decodeWorkers } from '../../shared/decode/wasm-pool';
import { findFfmpeg } from '../../shared/media';
import type { VideoCodec } from '../../shared/frames';
import { grayThumbnail, thumbnailDifference } from '../../shared/picture';
import { astronautClip, type Clip } from './support/clips';

const CODECS: VideoCodec[] = ['VP8', 'VP9', 'H264'];
const BACKENDS = ['ffmpeg', 'wasm'] as const;
// Grey thumbnails of a decoded frame and of the encoder's input: lossy coding moves them by ~0.1; a
// wrong frame of the panning clip by several, a broken decode by tens.
const MAX_MEAN_DIFF = 1.5;

/** The grey thumbnail of an encoder input frame (I420), sized like a decoded picture. */
function sourceThumbnail(like: Picture, source: Uint8Array): Uint8Array {
  return grayThumbnail({ ...like, format: 'i420', data: source });
}

const clips = new Map<VideoCodec, Promise<Clip>>();
function clip(codec: VideoCodec): Promise<Clip> {
  if (!clips.has(codec)) clips.set(codec, astronautClip(codec, 20));
  return clips.get(codec) as Promise<Clip>;
}

const open = new Set<FrameDecoder>();
afterEach(async () => {
  await Promise.all([...open].map((d) => d.close()));
  open.clear();
});

async function decoder(codec: VideoCodec, backend: 'ffmpeg' | 'wasm' | 'auto'): Promise<FrameDecoder> {
  const d = await createDecoder({ codec, backend });
  open.add(d);
  return d;
}

describe.each(BACKENDS)('%s backend', (backend) => {
  test.each(CODECS)('%s: wanted frames come back as the pictures that were encoded, one at a time', async (codec) => {
    const c = await clip(codec);
    const d = await decoder(codec, backend);
    expect(d.backend).toBe(backend);
    expect(d.codec).toBe(codec);
    let pictures = 0;
    for (let i = 0; i < c.frames.length; i++) {
      const want = i % 3 === 1 || i === c.frames.length - 1;
      // Awaited one by one: a wanted picture must come back before the next frame is fed.
      const p = await d.decode(c.frames[i], want);
      if (!want) {
        expect(p).toBeUndefined();
        continue;
      }
      expect(p).toBeDefined();
      if (!p) continue;
      pictures++;
      // Both backends convert the pictures asked for to RGB off the host's thread (the ffmpeg child, the wasm worker).
      expect(p).toMatchObject({ width: 640, height: 480, format: 'rgb', timestamp: c.frames[i].timestamp });
      expect(p.data.length).toBe(640 * 480 * 3);
      const diff = thumbnailDifference(grayThumbnail(p), sourceThumbnail(p, c.source[i]));
      expect(diff).toBeLessThan(MAX_MEAN_DIFF);
      // And it is not the neighbouring frame's picture.
      const other = thumbnailDifference(grayThumbnail(p), sourceThumbnail(p, c.source[i - 1]));
      expect(other).toBeGreaterThan(diff);
    }
    expect(pictures).toBe(7);
  });

  test('close() is idempotent, ends the decoder, and later calls resolve undefined', async () => {
    const c = await clip('VP8');
    const threadsBefore = await threadCount();
    const d = await decoder('VP8', backend);
    const pid = d instanceof FfmpegDecoder ? d.pid : undefined;
    if (backend === 'ffmpeg') expect(await processAlive(pid)).toBe(true);
    await d.decode(c.frames[0], true);
    await Promise.all([d.close(), d.close()]);
    await d.close();
    expect(await d.decode(c.frames[1], true)).toBeUndefined();
    if (backend === 'ffmpeg') {
      expect(await processAlive(pid)).toBe(false);
    } else {
      // The worker's thread is gone from this process (it may take a moment to be joined).
      await waitFor(async () => (await threadCount()) <= threadsBefore);
    }
  });

  test('a wanted frame still pending when the decoder closes resolves undefined', async () => {
    const c = await clip('VP8');
    const d = await decoder('VP8', backend);
    const pending = d.decode(c.frames[0], true);
    await d.close();
    // Either it made it before the close, or it resolves undefined: it never hangs or rejects.
    const p = await pending;
    if (p) expect(p.width).toBe(640);
  });
});

test("ffmpeg: a released picture's buffer holds a later picture; one still held is never reused", async () => {
  const c = await clip('VP8');
  const d = await decoder('VP8', 'ffmpeg');
  const first = (await d.decode(c.frames[0], true))!;
  const kept = (await d.decode(c.frames[1], true))!;
  const keptBytes = Buffer.from(kept.data);
  d.release(first);
  d.release(first); // twice: still one buffer
  d.release({ ...first, data: new Uint8Array(first.data.length) }); // not from this decoder: ignored
  const third = (await d.decode(c.frames[2], true))!;
  const fourth = (await d.decode(c.frames[3], true))!;
  expect(third.data).toBe(first.data);
  expect(fourth.data).not.toBe(first.data);
  expect(fourth.data).not.toBe(kept.data);
  expect(Buffer.from(kept.data).equals(keptBytes)).toBe(true);
  // The reused buffer holds the new picture, not the old one.
  expect(thumbnailDifference(grayThumbnail(third), sourceThumbnail(third, c.source[2]))).toBeLessThan(MAX_MEAN_DIFF);
});

test('ffmpeg: pictures come through a local socket read into one reused buffer, not a pipe', async () => {
  const c = await clip('VP8');
  const d = (await decoder('VP8', 'ffmpeg')) as FfmpegDecoder;
  expect(await d.decode(c.frames[0], true)).toBeDefined();
  expect(await fs.readlink(`/proc/${d.pid}/fd/1`)).toMatch(/^socket:/);
});

test('the picture input keeps bytes in order across reads, cuts pictures from the front and grows for large ones', () => {
  const input = new PictureInput();
  let reads = 0;
  input.onData = () => reads++;
  const big = Buffer.alloc(5 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 255;
  // Half from a pipe, half read into room() as a socket does.
  input.append(big.subarray(0, 3_000_000));
  const room = input.room();
  expect(room.length).toBeGreaterThanOrEqual(256 * 1024);
  const n = Math.min(room.length, big.length - 3_000_000);
  big.copy(room, 0, 3_000_000, 3_000_000 + n);
  input.received(n);
  input.append(big.subarray(3_000_000 + n));
  expect([input.length, reads]).toEqual([big.length, 3]);
  const first = new Uint8Array(921_600);
  input.takeInto(first);
  expect(Buffer.from(first).equals(big.subarray(0, 921_600))).toBe(true);
  const rest = new Uint8Array(big.length - 921_600);
  input.takeInto(rest);
  expect(Buffer.from(rest).equals(big.subarray(921_600))).toBe(true);
  expect(input.length).toBe(0);
  expect(() => input.takeInto(new Uint8Array(1))).toThrow(RangeError);
});

test("ffmpeg: showinfo's checksums are skipped where the binary knows how, and kept where it does not", async () => {
  expect(await showinfoCanSkipChecksums(await findFfmpeg())).toBe(true);
  expect(ffmpegDecodeArgs({ checksums: false }).join(' ')).toContain('showinfo=checksum=0,');
  expect(ffmpegDecodeArgs().join(' ')).toContain(',showinfo,');
  // An ffmpeg whose showinfo has no such option (and one that cannot run) keeps the plain filter.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'old-ffmpeg-'));
  try {
    const old = path.join(dir, 'ffmpeg');
    await fs.writeFile(old, '#!/bin/sh\necho "Filter showinfo"\necho "showinfo AVOptions:"\n', { mode: 0o755 });
    expect(await showinfoCanSkipChecksums(old)).toBe(false);
    expect(await showinfoCanSkipChecksums(path.join(dir, 'missing'))).toBe(false);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

describe.each(BACKENDS)('%s backend, broken input', (backend) => {
  test('a frame the decoder cannot read gives undefined, and the stream goes on', async () => {
    const c = await clip('VP8');
    const d = await decoder('VP8', backend);
    expect(await d.decode(c.frames[0], true)).toBeDefined();
    const garbage = { ...c.frames[1], data: Buffer.alloc(300, 0xa5), isKeyframe: false };
    // Not awaited one by one: ffmpeg only knows a wanted picture is missing once a later one comes out.
    const [bad, good] = await Promise.all([d.decode(garbage, true), d.decode(c.frames[1], true)]);
    expect(bad).toBeUndefined();
    expect(good).toMatchObject({ width: 640, height: 480, timestamp: c.frames[1].timestamp });
  });
});

describe('a decoder that dies', () => {
  test('ffmpeg killed from outside: pending and later calls reject with a typed error', async () => {
    const c = await clip('VP8');
    const d = await decoder('VP8', 'ffmpeg');
    expect(await d.decode(c.frames[0], true)).toBeDefined();
    const pid = (d as FfmpegDecoder).pid as number;
    const exited = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if ((d as FfmpegDecoder).pid === undefined) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    process.kill(pid, 'SIGKILL');
    await exited;
    await expect(d.decode(c.frames[1], true)).rejects.toMatchObject({ name: 'DecoderFailedError', code: 'decoder_failed', backend: 'ffmpeg', codec: 'VP8' });
    await d.close();
  });
});

describe('availability', () => {
  test('ffmpeg at a path that does not exist: a typed error naming the codec and what is missing', async () => {
    const missing = '/nonexistent/bin/ffmpeg';
    await expect(createDecoder({ codec: 'VP9', backend: 'ffmpeg', ffmpegPath: missing })).rejects.toMatchObject({
      name: 'DecoderUnavailableError',
      code: 'decoder_unavailable',
      retryable: false,
      codec: 'VP9',
      backend: 'ffmpeg',
    });
    const err = await createDecoder({ codec: 'VP9', backend: 'ffmpeg', ffmpegPath: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecoderUnavailableError);
    expect((err as Error).message).toContain('VP9');
    expect((err as Error).message).toContain(missing);
    expect((err as DecoderUnavailableError).toJSON()).toMatchObject({ code: 'decoder_unavailable', codec: 'VP9', backend: 'ffmpeg' });
    const avail = await decoderAvailability('VP9', 'ffmpeg', { ffmpegPath: missing });
    expect('error' in avail && avail.error).toBeInstanceOf(DecoderUnavailableError);
  });

  test("'auto' falls back to wasm when no ffmpeg is found, and prefers ffmpeg when one is", async () => {
    expect(await decoderAvailability('H264', 'auto', { ffmpegPath: '/nonexistent/ffmpeg' })).toEqual({ backend: 'wasm' });
    expect(await decoderAvailability('H264', 'auto')).toMatchObject({ backend: 'ffmpeg' });
    expect(await decoderAvailability('VP8', 'wasm')).toEqual({ backend: 'wasm' });
    const d = await decoder('VP8', 'auto');
    expect(d.backend).toBe('ffmpeg');
  });

  test('an unknown codec or backend is refused with the typed error', async () => {
    await expect(createDecoder({ codec: 'AV1' as VideoCodec })).rejects.toBeInstanceOf(DecoderUnavailableError);
    await expect(createDecoder({ codec: 'VP8', backend: 'gpu' as 'wasm' })).rejects.toMatchObject({ code: 'decoder_unavailable' });
  });
});

async function processAlive(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return false;
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie is dead
  } catch {
    return false;
  }
}

async function threadCount(): Promise<number> {
  return (await fs.readdir('/proc/self/task')).length;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(BACKENDS)('%s backend, a stream that changes size', (backend) => {
  test.each(['VP8', 'H264'] as VideoCodec[])('%s: pictures come out at the new size after a key frame of another size', async (codec) => {
    const big = await clip(codec);
    const small = await astronautClip(codec, 10, 320, 240, 10);
    const d = await decoder(codec, backend);
    const sizes: string[] = [];
    const frames = [...big.frames.slice(0, 10), ...small.frames.map((f) => ({ ...f, timestamp: f.timestamp + 10 * 6000 }))];
    // Not awaited one by one: an old ffmpeg child flushes while the new one starts.
    const pictures = await Promise.all(frames.map((f) => d.decode(f, true)));
    for (const p of pictures) sizes.push(p ? `${p.width}x${p.height}` : '-');
    expect(sizes).toEqual([...Array(10).fill('640x480'), ...Array(10).fill('320x240')]);
    const last = pictures[19] as NonNullable<(typeof pictures)[number]>;
    expect(thumbnailDifference(grayThumbnail(last), sourceThumbnail(last, small.source[9]))).toBeLessThan(MAX_MEAN_DIFF);
  });
});

test.each(BACKENDS)('%s: a frame of another codec is refused with an input error', async (backend) => {
  const c = await clip('H264');
  const d = await decoder('VP8', backend);
  await expect(d.decode(c.frames[0], true)).rejects.toMatchObject({ name: 'InputError', field: 'frame.codec' });
});

test('wasm: decoders share worker threads (one per core at most), each with its own decoder; the last to close ends its worker', async () => {
  const c = await clip('VP8');
  const many: FrameDecoder[] = [];
  for (let i = 0; i < DECODERS_PER_WORKER; i++) many.push(await decoder('VP8', 'wasm'));
  expect(decodeWorkers()).toEqual([{ threadId: expect.any(Number), decoders: DECODERS_PER_WORKER }]);
  // One more: a second worker where there is a second core.
  many.push(await decoder('VP8', 'wasm'));
  const workers = decodeWorkers();
  expect(workers.length).toBe(Math.min(2, os.availableParallelism()));
  expect(workers.reduce((n, w) => n + w.decoders, 0)).toBe(DECODERS_PER_WORKER + 1);
  // Each decoder keeps its own state: every one decodes the clip's frames in order, interleaved with the others.
  for (let i = 0; i < 4; i++) {
    const pictures = await Promise.all(many.map((d) => d.decode(c.frames[i], true)));
    for (const p of pictures) expect(thumbnailDifference(grayThumbnail(p!), sourceThumbnail(p!, c.source[i]))).toBeLessThan(MAX_MEAN_DIFF);
  }
  for (const d of many) await d.close();
  expect(decodeWorkers()).toEqual([]);
});
