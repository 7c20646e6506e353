import { isKeyFrame } from '../../shared/frames';
import { FfmpegSource, KeyFramePhases, openCameraSource, Publisher, StaggeredSource, type VideoSource } from '../../shared/publish';
import { decodeFrames, runFfmpeg, testFfmpeg } from '../streaming/support/ffmpeg';
import { startHarness, waitFor, type StreamingHarness } from '../streaming/support/harness';
import { FAST_REJOIN, Viewer } from '../streaming/support/peers';
import { startMjpegCamera } from './support/cameras';

// Frames of the unit tests: the phase and the frame's number, key or not.
interface Frame {
  phase: number;
  n: number;
  key: boolean;
}

/** A phase of `count` frames whose key frames are at `keys`; `reads` counts the frames taken from it. */
function phase(p: number, count: number, keys: (n: number) => boolean, reads: number[] = []): AsyncIterable<Frame> {
  return (async function* () {
    for (let n = 0; n < count; n++) {
      reads[p] = n + 1;
      await Promise.resolve();
      yield { phase: p, n, key: keys(n) };
    }
  })();
}

const every = (interval: number, offset: number) => (n: number) => n === 0 || (n - offset) % interval === 0;

describe('the phase switch', () => {
  test('phase 0 as it is until asked; a request is answered by the first key frame any phase has, then that phase is kept', async () => {
    const phases = new KeyFramePhases<Frame>((f) => f.key);
    const sent: Frame[] = [];
    for await (const f of phases.merge([phase(0, 50, every(20, 0)), phase(1, 50, every(20, 10))])) {
      sent.push(f);
      if (f.n === 3 || f.n === 31) phases.request();
    }
    expect(sent.map((f) => f.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    const keys = sent.filter((f) => f.key).map((f) => `${f.phase}:${f.n}`);
    // Asked at 3: phase 1's key at 10 (phase 0's next is at 20); asked at 31: phase 0's at 40 (phase 1's next is at 50).
    expect(keys).toEqual(['0:0', '1:10', '1:30', '0:40']);
    expect(sent.slice(10, 40).every((f) => f.phase === 1)).toBe(true);
    expect(phases.stats).toEqual({ requests: 2, switches: 2 });
  });

  test('a request the phase being sent answers first changes nothing', async () => {
    const phases = new KeyFramePhases<Frame>((f) => f.key);
    const sent: Frame[] = [];
    for await (const f of phases.merge([phase(0, 30, every(10, 0)), phase(1, 30, every(10, 8))])) {
      sent.push(f);
      if (f.n === 9) phases.request();
    }
    expect(sent.every((f) => f.phase === 0)).toBe(true);
    expect(phases.stats).toEqual({ requests: 1, switches: 0 });
  });

  test('a phase that can be read at once (a file) is read only a little ahead of what is sent', async () => {
    const phases = new KeyFramePhases<Frame>((f) => f.key);
    const reads: number[] = [];
    const merged = phases.merge([phase(0, 10_000, every(10, 0), reads), phase(1, 10_000, every(10, 5), reads)]);
    let sent = 0;
    for await (const f of merged) {
      if (++sent === 100) {
        expect(f.n).toBe(99);
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(Math.max(...reads)).toBeLessThan(100 + 40);
  });

  test('files, read faster than they play: a request made while a frame waits for its time is answered by that frame', async () => {
    const h264 = (key: boolean): Buffer => Buffer.from([0, 0, 0, 1, key ? 0x65 : 0x41, 0x88]);
    // Six frames 100 ms apart (90 kHz clock); besides the first, a key frame only at `key`.
    const file = (key: number): VideoSource => ({
      codec: 'H264',
      frames: async function* () {
        for (let n = 0; n < 6; n++) yield { data: h264(n === 0 || n === key), timestamp: n * 9000 };
      },
      close: async () => undefined,
    });
    const source = new StaggeredSource([file(-1), file(1)]);
    const frames = source.frames()[Symbol.asyncIterator]();
    expect(isKeyFrame('H264', ((await frames.next()).value as { data: Buffer }).data)).toBe(true);
    // As the Publisher does: it takes frame 1 and sends it at its time, 100 ms after frame 0. A viewer
    // asks meanwhile; chosen when it was taken, frame 1 would have been phase 0's, not a key frame.
    setTimeout(() => source.requestKeyFrame(), 30);
    const second = (await frames.next()).value as { data: Buffer; timestamp: number };
    expect(second.timestamp).toBe(9000);
    expect(isKeyFrame('H264', second.data)).toBe(true);
    expect(source.stats).toEqual({ requests: 1, switches: 1 });
    await frames.return?.(undefined);
  });

  test('a phase that fails makes the stream fail', async () => {
    const phases = new KeyFramePhases<Frame>((f) => f.key);
    const failing = (async function* () {
      yield { phase: 1, n: 0, key: true };
      throw new Error('encoder died');
    })();
    const sent: number[] = [];
    await expect(
      (async () => {
        for await (const f of phases.merge([phase(0, 100, every(10, 0)), failing])) sent.push(f.n);
      })(),
    ).rejects.toThrow('encoder died');
    expect(sent.length).toBeLessThan(100);
  });
});

describe('ffmpeg encodings with staggered key frames', () => {
  test.each(['VP8', 'H264'] as const)('%s: a request is answered by the other phase\'s key frame, half an interval sooner', async (codec) => {
    const keysAt = async (keyFramePhases: number): Promise<{ keys: number[]; switches: number }> => {
      const source = new FfmpegSource({ ffmpegPath: await testFfmpeg(), input: { testPattern: true }, codec, fps: 10, gop: 40, keyFramePhases, maxFrames: 200, width: 160, height: 120 });
      const keys: number[] = [];
      let n = 0;
      for await (const f of source.frames()) {
        if (isKeyFrame(codec, f.data)) keys.push(n);
        if (n === 5 || n === 65 || n === 130) source.requestKeyFrame();
        n++;
      }
      expect(n).toBe(200);
      return { keys, switches: source.keyFrames.switches };
    };
    // One encoding: the requests wait for the next of every 40th frame.
    expect(await keysAt(1)).toEqual({ keys: [0, 40, 80, 120, 160], switches: 0 });
    // Two: asked at 5, the second phase's key at 20; at 65, the first's at 80; at 130, the second's at 140.
    expect(await keysAt(2)).toEqual({ keys: [0, 20, 60, 80, 120, 140, 180], switches: 3 });
  });
});

describe('a viewer joining', () => {
  let h: StreamingHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  async function firstPictureAt(source: FfmpegSource): Promise<{ sentBefore: number; viewer: Viewer; pub: Publisher }> {
    const room = await h.client.createRoom();
    const pub = new Publisher({ source, getTicket: h.client.ticketSource(room.id, 'up'), loopbackOnly: true, rejoin: FAST_REJOIN });
    const viewer = new Viewer(h.client, room.id, source.codec);
    await pub.start();
    let sentBefore = -1;
    viewer.session.once('frame', () => (sentBefore = pub.stats.frames));
    await viewer.start();
    await waitFor('a picture', () => viewer.frames.length >= 5, 20_000);
    return { sentBefore, viewer, pub };
  }

  test('the room\'s key-frame request reaches the encoder: the viewer\'s first picture is the other phase\'s key frame, decodable', async () => {
    // Key frames every 10 s; the second phase's come 5 s after the first's. The viewer joins within
    // the first seconds, so without the request answered its first picture would be frame 100.
    const source = new FfmpegSource({ ffmpegPath: await testFfmpeg(), input: { testPattern: true }, codec: 'VP8', fps: 10, gop: 100, keyFramePhases: 2, width: 320, height: 240 });
    const { sentBefore, viewer, pub } = await firstPictureAt(source);
    try {
      expect(sentBefore).toBeGreaterThanOrEqual(50);
      expect(sentBefore).toBeLessThan(100);
      expect(source.keyFrames.switches).toBe(1);
      expect(source.keyFrames.requests).toBeGreaterThanOrEqual(1);
      expect(viewer.frames[0]).toMatchObject({ isKeyframe: true, width: 320, height: 240 });
      expect(await decodeFrames(viewer.frames.slice(0, 5))).toEqual({ decoded: 5, errors: '' });
    } finally {
      await viewer.close();
      await pub.close();
      await source.close();
    }
  }, 60_000);

  test('a camera (MJPEG, encoded in two phases by default) answers a request from the phase whose key frame comes first', async () => {
    const made = await runFfmpeg(['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=1', '-frames:v', '4', '-f', 'image2pipe', '-c:v', 'mjpeg', 'pipe:1']);
    const jpegs = splitJpegs(made.stdout);
    const camera = await startMjpegCamera(jpegs, { fps: 10 });
    const { source } = await openCameraSource({ source: camera.url, width: 320, height: 240 });
    const closing: VideoSource = source;
    try {
      const keys: number[] = [];
      let n = 0;
      let askedAt = -1;
      for await (const f of source.frames()) {
        if (isKeyFrame('VP8', f.data)) keys.push(n);
        // Asked just after a key frame of the first phase: the second phase's, half a second on, comes first.
        if (askedAt < 0 && n > 0 && keys.at(-1) === n) {
          askedAt = n;
          source.requestKeyFrame!();
        }
        if (++n >= 60) break;
      }
      expect(askedAt).toBeGreaterThan(0);
      expect((source as unknown as { keyFrames: { switches: number } }).keyFrames.switches).toBe(1);
      const answered = keys.find((k) => k > askedAt)!;
      expect(answered - askedAt).toBeLessThanOrEqual(7);
    } finally {
      await closing.close();
      await camera.stop();
    }
  }, 60_000);
});

/** JPEG pictures from ffmpeg's image2pipe output (each starts with FF D8 FF). */
function splitJpegs(data: Buffer): Buffer[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < data.length; i++) if (data[i] === 0xff && data[i + 1] === 0xd8 && data[i + 2] === 0xff) starts.push(i);
  return starts.map((s, i) => data.subarray(s, starts[i + 1] ?? data.length));
}
