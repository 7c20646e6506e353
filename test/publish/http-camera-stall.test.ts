import http from 'node:http';
import type net from 'node:net';
import { liveFfmpegChildren, openCameraSource, type CameraSource, type CameraSourceState } from '../../shared/publish';
import { MultipartCutter, PartTooLarge } from '../../shared/publish/mjpeg-parts';
import { claimedPng } from '../support/claimed-images';
import { astronautJpeg } from '../support/images';

// HTTP cameras that send bytes but no picture: each is a hand-written server on 127.0.0.1, read by
// a real camera source; the camera must be lost within the stall time, saying what it got.

const BOUNDARY = 'frame';
const PASSWORD = 'Pa55-word-stall';

interface FakeCamera {
  url: string;
  stop(): Promise<void>;
}

/** An HTTP camera whose answer `serve` writes; every timer it starts is cleared when the connection closes. */
async function fakeCamera(serve: (res: http.ServerResponse, every: (ms: number, fn: () => void) => void) => void): Promise<FakeCamera> {
  const server = http.createServer((req, res) => {
    const timers: NodeJS.Timeout[] = [];
    res.on('close', () => timers.forEach(clearInterval));
    res.on('error', () => undefined);
    serve(res, (ms, fn) => timers.push(setInterval(fn, ms)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://cam:${PASSWORD}@127.0.0.1:${port}/stream`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const multipart = (res: http.ServerResponse): void => void res.writeHead(200, { 'content-type': `multipart/x-mixed-replace;boundary=${BOUNDARY}` });
const part = (body: Buffer, length = true): Buffer =>
  Buffer.concat([Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Type: image/jpeg\r\n${length ? `Content-Length: ${body.length}\r\n` : ''}\r\n`), body]);

/** Reads the camera until it is first lost; returns that state, how long it took and the frames seen. */
async function firstLoss(url: string, stallSeconds: number, limitMs: number): Promise<{ lost: Extract<CameraSourceState, { state: 'lost' }>; afterMs: number; frames: number }> {
  const { source } = await openCameraSource({ source: url, stallSeconds, maxRetrySeconds: 1 });
  const camera = source as CameraSource;
  const started = performance.now();
  let frames = 0;
  const lost = new Promise<Extract<CameraSourceState, { state: 'lost' }>>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`not lost within ${limitMs} ms`)), limitMs);
    camera.on('state', (s) => {
      if (s.state !== 'lost') return;
      clearTimeout(t);
      resolve(s);
    });
  });
  const reading = (async () => {
    for await (const frame of camera.frames()) if (frame) frames++;
  })();
  try {
    const state = await lost;
    return { lost: state, afterMs: performance.now() - started, frames };
  } finally {
    await camera.close();
    await reading;
  }
}

afterAll(() => {
  expect(liveFfmpegChildren()).toBe(0);
});

describe('an HTTP camera that sends no picture is lost after the stall time, naming what it got', () => {
  test('bytes without the boundary', async () => {
    const cam = await fakeCamera((res, every) => {
      multipart(res);
      every(50, () => res.write(Buffer.alloc(512, 0x41)));
    });
    try {
      const { lost, afterMs } = await firstLoss(cam.url, 1, 10_000);
      expect(lost.reason).toMatch(/no picture from http:\/\/cam:\*\*\*@127\.0\.0\.1:\d+\/stream for 1 s; it sent no boundary "--frame" in \d+ bytes/);
      expect(lost.reason).not.toContain(PASSWORD);
      expect(afterMs).toBeGreaterThanOrEqual(900);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('a part head, then a drip of bytes that never ends the part', async () => {
    const cam = await fakeCamera((res, every) => {
      multipart(res);
      res.write(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n`);
      res.write(astronautJpeg().subarray(0, 100));
      every(100, () => res.write(Buffer.from([0x11])));
    });
    try {
      const { lost } = await firstLoss(cam.url, 1, 10_000);
      expect(lost.reason).toMatch(/for 1 s; it sent an unfinished part: \d+ bytes and no end/);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('tiny parts that are no pictures', async () => {
    const cam = await fakeCamera((res, every) => {
      multipart(res);
      every(20, () => res.write(part(Buffer.from('hello'))));
    });
    try {
      const { lost } = await firstLoss(cam.url, 1, 10_000);
      expect(lost.reason).toMatch(/it sent \d+ parts, none taken: parts too small to be a picture \(the last 5 bytes\)/);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('parts of a fair size that are not JPEG or PNG (no Content-Length: cut at the boundary)', async () => {
    const cam = await fakeCamera((res, every) => {
      multipart(res);
      every(20, () => res.write(part(Buffer.alloc(2000, 0x20), false)));
    });
    try {
      const { lost } = await firstLoss(cam.url, 1, 10_000);
      expect(lost.reason).toMatch(/none taken: parts that are not JPEG or PNG pictures \(the last 2000 bytes\)/);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('pictures whose header says 30000x30000 (over the pixel limit): never encoded, lost', async () => {
    const huge = claimedPng(30000, 30000);
    const cam = await fakeCamera((res, every) => {
      multipart(res);
      every(50, () => res.write(part(huge)));
    });
    try {
      const { lost, frames } = await firstLoss(cam.url, 1, 10_000);
      expect(lost.reason).toMatch(/none taken: pictures too large \(the last 30000x30000, over at most 25000000 pixels/);
      expect(frames).toBe(0);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('a snapshot URL that answers pictures over the pixel limit: lost after the stall time and the interval', async () => {
    const huge = claimedPng(30000, 30000);
    const cam = await fakeCamera((res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(huge));
    try {
      // Two snapshots a second (the default): 1 s of stall + 0.5 s of interval.
      const { lost, afterMs } = await firstLoss(cam.url, 1, 10_000);
      expect(lost.reason).toMatch(/no picture from .* for 2 s; it sent \d+ parts?, none taken: pictures too large \(the last 30000x30000/);
      expect(afterMs).toBeGreaterThanOrEqual(1400);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('good pictures among junk keep the camera live: never lost while pictures come', async () => {
    const jpeg = astronautJpeg();
    let n = 0;
    const cam = await fakeCamera((res, every) => {
      multipart(res);
      every(50, () => res.write(part(n++ % 4 === 0 ? jpeg : Buffer.from('junk'))));
    });
    try {
      await expect(firstLoss(cam.url, 1, 4000)).rejects.toThrow(/not lost within 4000 ms/);
    } finally {
      await cam.stop();
    }
  }, 20_000);
});

describe('an MJPEG part over the size cap (8 MiB) is refused as soon as it passes it', () => {
  test('a Content-Length over the cap: at once, before any of its bytes', async () => {
    const cam = await fakeCamera((res) => {
      multipart(res);
      // Only the head: the camera would send 200 MB next.
      res.write(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: 209715200\r\n\r\n`);
    });
    try {
      const { lost, afterMs } = await firstLoss(cam.url, 30, 10_000);
      expect(lost.reason).toMatch(/sent a part of 209715200 bytes \(Content-Length\), over 8388608: too large for a picture/);
      expect(afterMs).toBeLessThan(5000);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('a snapshot whose Content-Length is over the cap: at once', async () => {
    const cam = await fakeCamera((res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '209715200' });
      res.write(astronautJpeg().subarray(0, 100));
    });
    try {
      const { lost, afterMs } = await firstLoss(cam.url, 30, 10_000);
      expect(lost.reason).toMatch(/announced a picture of 209715200 bytes, over 8388608/);
      expect(afterMs).toBeLessThan(5000);
    } finally {
      await cam.stop();
    }
  }, 20_000);

  test('without Content-Length: as soon as the bytes read pass the cap, while the camera is still sending', async () => {
    let written = 0;
    const cam = await fakeCamera((res) => {
      multipart(res);
      res.write(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n`);
      // 9 MiB of the part, then the camera keeps the part open: only the cap can end it before the stall.
      const block = Buffer.alloc(64 * 1024, 0x55);
      const more = (): void => {
        while (written < 9 * 1024 * 1024) {
          written += block.length;
          if (!res.write(block)) return void res.once('drain', more);
        }
      };
      more();
    });
    try {
      const { lost, afterMs } = await firstLoss(cam.url, 30, 20_000);
      expect(lost.reason).toMatch(/sent a part over 8388608 bytes \(no Content-Length\): too large for a picture/);
      expect(afterMs).toBeLessThan(15_000);
    } finally {
      await cam.stop();
    }
  }, 30_000);
});

describe('the multipart cutter', () => {
  test('cuts the same parts however the bytes are split, with or without Content-Length', () => {
    const bodies = [Buffer.from('first picture'), Buffer.from(`contains --${BOUNDARY.slice(0, 3)} almost`), Buffer.alloc(0), Buffer.from('last')];
    for (const withLength of [true, false]) {
      const stream = Buffer.concat([...bodies.map((b) => part(b, withLength)), Buffer.from(`\r\n--${BOUNDARY}\r\n`)]);
      for (const size of [1, 2, 3, 7, 64, stream.length]) {
        const cutter = new MultipartCutter(BOUNDARY, 1000);
        const got: string[] = [];
        for (let i = 0; i < stream.length; i += size) got.push(...cutter.push(stream.subarray(i, i + size)).map((p) => p.toString()));
        expect({ withLength, size, got }).toEqual({ withLength, size, got: bodies.map((b) => b.toString()) });
      }
    }
  });

  test('a part past the cap throws at the read that passes it; a head that never ends is refused too', () => {
    const cutter = new MultipartCutter(BOUNDARY, 100);
    expect(cutter.push(Buffer.from(`--${BOUNDARY}\r\n\r\n`))).toEqual([]);
    expect(cutter.push(Buffer.alloc(100, 1))).toEqual([]);
    expect(cutter.describe()).toBe('an unfinished part: 100 bytes and no end');
    expect(() => cutter.push(Buffer.alloc(1, 1))).toThrow(PartTooLarge);
    const heads = new MultipartCutter(BOUNDARY, 100);
    expect(() => heads.push(Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n`), Buffer.alloc(20_000, 0x61)]))).toThrow(/a part head over 16384 bytes/);
  });
});
