import { spawnSync } from 'node:child_process';
import { constants as fsc } from 'node:fs';
import { access, chmod, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../shared/errors';
import { FfmpegNotFoundError, executableCopy, findFfmpeg } from '../../shared/media';
import { ivfFileHeader } from '../../shared/frames';
import { CameraPublisher, ffmpegArgs, ffmpegEncoders, IvfFileSource, openVideoSource, Publisher, type SourceFrame, type VideoSource } from '../../shared/publish';
import { decodeFrames, encodeTestPattern, runFfmpeg, testFfmpeg } from './support/ffmpeg';
import { startHarness, waitFor, type StreamingHarness } from './support/harness';
import { FAST_REJOIN, Viewer } from './support/peers';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'streaming-publish-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ffmpeg discovery', () => {
  test('explicit path, FFMPEG_PATH, PATH, then the npm package', async () => {
    const real = await testFfmpeg();
    expect(await findFfmpeg({ ffmpegPath: real })).toBe(real);
    await expect(findFfmpeg({ ffmpegPath: path.join(dir, 'missing') })).rejects.toBeInstanceOf(FfmpegNotFoundError);
    expect(await findFfmpeg({ env: { FFMPEG_PATH: real, PATH: '' } })).toBe(real);
    const binDir = path.join(dir, 'bin');
    await mkdir(binDir, { recursive: true });
    const named = path.join(binDir, 'ffmpeg');
    await writeFile(named, '#!/bin/sh\n');
    await chmod(named, 0o755);
    expect(await findFfmpeg({ env: { PATH: binDir } })).toBe(named);
    // Nothing configured: the optional package is used (this repository has it as a dev dependency).
    const packaged = await findFfmpeg({ env: { PATH: '' }, cacheDir: path.join(dir, 'cache') });
    await access(packaged, fsc.X_OK);
  });

  test('a binary without the executable bit is copied and made executable, once', async () => {
    const file = path.join(dir, 'tool');
    await writeFile(file, '#!/bin/sh\necho ok\n');
    await chmod(file, 0o644);
    const cache = path.join(dir, 'tool-cache');
    const copy = await executableCopy(file, cache);
    expect(copy).not.toBe(file);
    expect((await stat(copy)).mode & 0o111).not.toBe(0);
    expect((await stat(file)).mode & 0o111).toBe(0); // the original is left alone
    expect(spawnSync(copy).stdout.toString().trim()).toBe('ok');
    expect(await executableCopy(file, cache)).toBe(copy);
  });

  test('the copy lives in a private directory; a planted or loosened copy is replaced, a shared directory refused', async () => {
    const file = path.join(dir, 'tool2');
    await writeFile(file, '#!/bin/sh\necho genuine\n');
    await chmod(file, 0o644);
    const cache = path.join(dir, 'fresh-cache');
    const copy = await executableCopy(file, cache);
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    expect((await stat(copy)).mode & 0o077).toBe(0);
    // Someone made the copy writable and changed it: it is not trusted, a fresh copy replaces it.
    await writeFile(copy, '#!/bin/sh\necho planted\n');
    await chmod(copy, 0o777);
    expect(await executableCopy(file, cache)).toBe(copy);
    expect(spawnSync(copy).stdout.toString().trim()).toBe('genuine');
    expect((await readdir(cache)).filter((n) => n.endsWith('.partial'))).toEqual([]);
    // A directory others can write to, or a symbolic link, is refused.
    const shared = path.join(dir, 'shared-cache');
    await mkdir(shared);
    await chmod(shared, 0o777);
    await expect(executableCopy(file, shared)).rejects.toThrow(/writable by group or others/);
    const link = path.join(dir, 'linked-cache');
    await symlink(cache, link);
    await expect(executableCopy(file, link)).rejects.toThrow(/not a directory/);
  });

  test('the ffmpeg at hand has the encoders the publisher needs', async () => {
    const encoders = await ffmpegEncoders(await testFfmpeg());
    expect(encoders.has('libvpx')).toBe(true);
    expect(encoders.has('libx264')).toBe(true);
  });
});

describe('sources', () => {
  test('ffmpeg is asked for a short GOP (its output cannot honour PLI) and loops when told', () => {
    const args = ffmpegArgs({ ffmpegPath: 'ffmpeg', input: { images: 'shots/*.jpg' }, codec: 'H264', fps: 10, gop: 5, width: 320, height: 240 });
    expect(args.join(' ')).toContain('-g 5 -keyint_min 5');
    expect(args.join(' ')).toContain('-pattern_type glob -f image2 -i shots/*.jpg');
    expect(args).toContain('libx264');
    expect(ffmpegArgs({ ffmpegPath: 'ffmpeg', input: { file: 'a.mp4' }, codec: 'VP8', loop: true }).join(' ')).toContain('-stream_loop -1 -i a.mp4');
  });

  test('bad source options are refused with the field named', async () => {
    await expect(openVideoSource({})).rejects.toMatchObject({ name: 'InputError', field: 'source' });
    // A blank path is no source at all, and never a reason to fall back to the test pattern.
    await expect(openVideoSource({ file: '' })).rejects.toMatchObject({ name: 'InputError', field: 'file' });
    await expect(openVideoSource({ file: '', testPattern: false })).rejects.toMatchObject({ field: 'file' });
    await expect(openVideoSource({ images: '  ' })).rejects.toMatchObject({ field: 'images' });
    await expect(openVideoSource({ file: '', images: '' })).rejects.toMatchObject({ field: 'file' });
    await expect(openVideoSource({ file: 'a.ivf', images: 'b/%03d.png' })).rejects.toMatchObject({ field: 'source' });
    await expect(openVideoSource({ file: 42 as never })).rejects.toMatchObject({ field: 'file' });
    await expect(openVideoSource(undefined as never)).rejects.toMatchObject({ field: 'options' });
    await expect(openVideoSource({ testPattern: true, file: 'x.ivf' })).rejects.toBeInstanceOf(InputError);
    await expect(openVideoSource({ testPattern: true, fps: 0 })).rejects.toMatchObject({ field: 'fps' });
    await expect(openVideoSource({ testPattern: true, gop: 2.5 })).rejects.toMatchObject({ field: 'gop' });
    await expect(openVideoSource({ testPattern: true, codec: 'AV1' as never })).rejects.toMatchObject({ field: 'codec' });
  });

  test.each([true, false])('a file without a single frame ends with a clear error (loop: %p), not an endless loop', async (loop) => {
    const ivf = path.join(dir, `empty-${loop}.ivf`);
    const h264 = path.join(dir, `empty-${loop}.h264`);
    await writeFile(ivf, ivfFileHeader({ codec: 'VP8', width: 320, height: 240, timebaseDen: 30, timebaseNum: 1 }));
    await writeFile(h264, Buffer.alloc(0));
    for (const file of [ivf, h264]) {
      const source = await openVideoSource({ file, loop, ffmpegPath: path.join(dir, 'no-ffmpeg') });
      let frames = 0;
      const run = async (): Promise<void> => {
        for await (const frame of source.frames()) if (frame) frames++;
      };
      await expect(run()).rejects.toThrow(/holds no frames/);
      expect(frames).toBe(0);
      await source.close();
    }
  });

  test('an ffmpeg source runs one encoder: a second frames() is refused, close() stops the first', async () => {
    const source = await openVideoSource({ testPattern: true, codec: 'VP8', width: 160, height: 120, maxFrames: 1000 });
    const first = source.frames()[Symbol.asyncIterator]();
    try {
      expect((await first.next()).done).toBe(false);
      const second = source.frames()[Symbol.asyncIterator]();
      await expect(second.next()).rejects.toThrow(/already called/);
    } finally {
      await source.close();
    }
    let rest = 0;
    while (!(await first.next()).done) rest++;
    expect(rest).toBeLessThan(1000);
  });

  test('without ffmpeg, a file that needs encoding gets a clear error', async () => {
    const err = await openVideoSource({ file: path.join(dir, 'clip.mp4'), ffmpegPath: path.join(dir, 'no-ffmpeg') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FfmpegNotFoundError);
    expect((err as Error).message).toMatch(/ffmpegPath/);
    const direct = await openVideoSource({ file: path.join(dir, 'x.h264'), ffmpegPath: path.join(dir, 'no-ffmpeg') });
    expect(direct.codec).toBe('H264');
    await direct.close();
  });
});

describe('publishing an image sequence', () => {
  let h: StreamingHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  test('a video file (Matroska, MPEG-4 Part 2) is re-encoded to VP8 and reaches a viewer', async () => {
    const clip = path.join(dir, 'clip.mkv');
    const made = await runFfmpeg(['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=352x288:rate=25', '-frames:v', '25', '-c:v', 'mpeg4', clip]);
    expect(made.code).toBe(0);
    const room = await h.client.createRoom();
    const viewer = new Viewer(h.client, room.id, 'VP8');
    const source = await openVideoSource({ file: clip, codec: 'VP8', width: 320, height: 240, fps: 25, gop: 10, loop: true });
    expect(source.constructor.name).toBe('FfmpegSource');
    const pub = new Publisher({ source, getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true, rejoin: FAST_REJOIN });
    try {
      await pub.start();
      await viewer.start();
      await waitFor('frames', () => viewer.frames.length >= 15, 15_000);
      expect(viewer.frames[0]).toMatchObject({ isKeyframe: true, width: 320, height: 240 });
      expect(await decodeFrames(viewer.frames.slice(0, 15))).toEqual({ decoded: 15, errors: '' });
    } finally {
      await viewer.close();
      await pub.close();
      await source.close();
    }
  });

  test.each([
    ['png', 'VP8'],
    ['jpg', 'H264'],
  ] as const)('%s images encoded to %s reach a viewer as decodable frames', async (ext, codec) => {
    const shots = path.join(dir, `shots-${ext}`);
    await rm(shots, { recursive: true, force: true });
    await mkdir(shots);
    const made = await runFfmpeg(['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-frames:v', '20', path.join(shots, `%03d.${ext}`)]);
    expect(made.code).toBe(0);
    const room = await h.client.createRoom();
    const viewer = new Viewer(h.client, room.id, codec);
    const source = await openVideoSource({ images: path.join(shots, `%03d.${ext}`), codec, fps: 10, gop: 5, loop: true });
    const pub = new Publisher({ source, getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true, rejoin: FAST_REJOIN });
    // A throwing host listener must not disturb the broadcast.
    pub.on('connected', () => {
      throw new Error('listener bug');
    });
    viewer.session.on('frame', () => {
      throw new Error('listener bug');
    });
    // ...and is reported, not swallowed.
    const reported: string[] = [];
    pub.on('listenerError', ({ event }) => reported.push(`publisher ${event}`));
    viewer.session.on('listenerError', ({ event }) => reported.push(`viewer ${event}`));
    try {
      await pub.start();
      await viewer.start();
      await waitFor('frames', () => viewer.frames.length >= 12, 15_000);
      expect(reported).toContain('publisher connected');
      expect(reported.filter((r) => r === 'viewer frame').length).toBeGreaterThanOrEqual(12);
      expect(viewer.frames[0]).toMatchObject({ isKeyframe: true, width: 320, height: 240, codec });
      expect(await decodeFrames(viewer.frames.slice(0, 12))).toEqual({ decoded: 12, errors: '' });
    } finally {
      await viewer.close();
      await pub.close();
      await source.close();
    }
  });
});

describe('the source is its opener\'s', () => {
  let h: StreamingHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  /** A source that gives one frame and then stalls until it is closed, counting its closes. */
  function stallingSource(): VideoSource & { closes: number; reads: number } {
    let release: (() => void) | undefined;
    const closed = new Promise<void>((resolve) => (release = resolve));
    return {
      codec: 'VP8',
      closes: 0,
      reads: 0,
      async *frames(): AsyncGenerator<SourceFrame> {
        this.reads++;
        yield { data: Buffer.from([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a]), timestamp: 0 };
        await closed;
      },
      async close() {
        this.closes++;
        release?.();
      },
    };
  }

  test('the publisher stops reading a stalled source at close() and never closes it', async () => {
    const room = await h.client.createRoom();
    const source = stallingSource();
    const pub = new Publisher({ source, getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true, rejoin: FAST_REJOIN });
    const closed = new Promise<{ error?: Error }>((resolve) => pub.once('closed', resolve));
    await pub.start();
    await waitFor('the first frame read', () => source.reads === 1, 5000);
    await pub.close();
    expect(await closed).toEqual({ error: undefined });
    expect(source.closes).toBe(0);
    await source.close();
    expect(source.closes).toBe(1);
  });

  test('a camera publisher closes the source it opened once, at stop()', async () => {
    const ivf = path.join(dir, 'owned.ivf');
    await writeFile(ivf, await encodeTestPattern({ codec: 'VP8', frames: 20, gop: 5 }));
    const room = await h.client.createRoom();
    const closes = jest.spyOn(IvfFileSource.prototype, 'close');
    try {
      const cam = new CameraPublisher({ source: ivf, codec: 'VP8', getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true });
      await cam.start();
      expect(closes).toHaveBeenCalledTimes(0);
      await cam.stop();
      expect(closes).toHaveBeenCalledTimes(1);
    } finally {
      closes.mockRestore();
    }
  });
});
