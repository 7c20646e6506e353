import { Agent, request } from 'undici';
import { sniffImage } from '../image/sniff';
import { CameraFailure } from './camera-failure';
import { maskUrl } from './camera-url';
import { MultipartCutter, PartTooLarge } from './mjpeg-parts';

/** The largest picture accepted from an HTTP camera (a 4K JPEG is well below). */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
/** Below this no JPEG or PNG can hold its header (the smallest valid PNG is 67 bytes). */
const MIN_PICTURE_BYTES = 67;

/** How an HTTP camera is read. */
export interface HttpCameraOptions {
  url: string;
  /** Called with each JPEG or PNG picture; returns why it was refused (over the pixel limit ...), or undefined when taken. */
  onImage: (image: Buffer) => string | undefined;
  /** No picture taken for this long (snapshots: after the interval) counts as a stall, whatever bytes come. */
  stallMs: number;
  /** Time between two snapshot requests (a camera that serves single pictures). */
  snapshotIntervalMs: number;
  signal: AbortSignal;
  dispatcher: Agent;
}

/**
 * Reads an HTTP camera until it fails or `signal` aborts: an MJPEG stream
 * (multipart/x-mixed-replace) part by part, or a JPEG/PNG snapshot URL polled. Credentials in the
 * URL become a Basic Authorization header. Always ends by throwing a CameraFailure (or on abort);
 * among the reasons, no picture taken within the stall time, naming what came instead.
 */
export async function readHttpCamera(o: HttpCameraOptions): Promise<void> {
  const url = new URL(o.url);
  const headers: Record<string, string> = { accept: 'multipart/x-mixed-replace, image/jpeg, image/png, */*' };
  if (url.username || url.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const shown = maskUrl(o.url);
  const watch = new PictureWatch(shown, o.stallMs);
  const signal = AbortSignal.any([o.signal, watch.signal]);
  try {
    for (;;) {
      const started = Date.now();
      const stall = new AbortController();
      const timer = setTimeout(() => stall.abort(), o.stallMs);
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, { headers, signal: AbortSignal.any([signal, stall.signal]), dispatcher: o.dispatcher, headersTimeout: o.stallMs, bodyTimeout: o.stallMs });
      } catch (err) {
        clearTimeout(timer);
        if (o.signal.aborted) return;
        watch.check();
        throw new CameraFailure('camera_failed', stall.signal.aborted ? `no answer from ${shown} within ${o.stallMs / 1000} s` : `cannot reach ${shown}: ${(err as Error).message}`);
      }
      clearTimeout(timer);
      const type = String(res.headers['content-type'] ?? '').toLowerCase();
      if (res.statusCode === 401 || res.statusCode === 403) {
        await res.body.dump().catch(() => undefined);
        throw new CameraFailure('camera_refused', `${shown} refused the credentials (HTTP ${res.statusCode})`);
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => undefined);
        throw new CameraFailure('camera_failed', `${shown} answered HTTP ${res.statusCode}`);
      }
      if (type.startsWith('multipart/')) {
        const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
        if (!boundary) throw new CameraFailure('camera_failed', `${shown} sends multipart without a boundary`);
        await readMultipart(res.body, new MultipartCutter(boundary, MAX_IMAGE_BYTES), o, shown, watch);
        if (o.signal.aborted) return;
        watch.check();
        throw new CameraFailure('camera_failed', `${shown} ended the MJPEG stream`);
      }
      const length = Number(res.headers['content-length'] ?? NaN);
      if (length > MAX_IMAGE_BYTES) {
        res.body.destroy();
        throw new CameraFailure('camera_failed', `${shown} announced a picture of ${length} bytes, over ${MAX_IMAGE_BYTES}`);
      }
      const body = await readBody(res.body, shown, o, watch);
      if (o.signal.aborted) return;
      if (!sniffImage(body)) throw new CameraFailure('camera_failed', `${shown} answered ${type || 'no content type'}, neither an MJPEG stream nor a JPEG/PNG picture`);
      watch.allowInterval(o.snapshotIntervalMs);
      watch.offer(body, o.onImage);
      const wait = o.snapshotIntervalMs - (Date.now() - started);
      if (wait > 0) await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        o.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
      if (o.signal.aborted) return;
      watch.check();
    }
  } finally {
    watch.stop();
  }
}

/**
 * The stall of an HTTP camera: no picture taken for stallMs, whatever bytes come. Keeps what came
 * instead (parts that are no pictures, pictures refused, an unfinished part) for the reason.
 */
class PictureWatch {
  readonly #shown: string;
  readonly #stallMs: number;
  readonly #abort = new AbortController();
  #timer?: NodeJS.Timeout;
  #windowMs: number;
  #takenAt = Date.now();
  #refused = 0;
  #lastRefusal?: string;
  /** What the reader is waiting on, asked when the time is up. */
  waiting?: () => string;

  constructor(shown: string, stallMs: number) {
    this.#shown = shown;
    this.#stallMs = stallMs;
    this.#windowMs = stallMs;
    this.#arm();
  }

  /** Aborted when the stall time passed without a picture taken. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Hands a complete part to `take` when it is a JPEG or PNG picture; notes why not otherwise. */
  offer(part: Buffer, take: (image: Buffer) => string | undefined): void {
    const refusal = !sniffImage(part)
      ? part.length < MIN_PICTURE_BYTES ? `parts too small to be a picture (the last ${part.length} bytes)` : `parts that are not JPEG or PNG pictures (the last ${part.length} bytes)`
      : take(part);
    if (refusal === undefined) {
      this.#refused = 0;
      this.#lastRefusal = undefined;
      this.#takenAt = Date.now();
      this.#arm();
      return;
    }
    this.#refused++;
    this.#lastRefusal = refusal;
  }

  /** A snapshot camera: its pictures come an interval apart, which is not counted as a stall. */
  allowInterval(ms: number): void {
    if (this.#windowMs === this.#stallMs + ms) return;
    this.#windowMs = this.#stallMs + ms;
    this.#arm();
  }

  /** Throws the stall's CameraFailure when the time is up. */
  check(): void {
    if (this.#abort.signal.aborted) throw this.failure();
  }

  /** The camera lost for want of a picture, saying what came instead. */
  failure(): CameraFailure {
    const got = this.#lastRefusal ? `${this.#refused} ${this.#refused === 1 ? 'part' : 'parts'}, none taken: ${this.#lastRefusal}` : (this.waiting?.() ?? 'nothing usable');
    return new CameraFailure('camera_failed', `no picture from ${this.#shown} for ${Math.round(this.#windowMs / 1000)} s; it sent ${got}`);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#abort.abort(), Math.max(0, this.#takenAt + this.#windowMs - Date.now()));
  }
}

async function readBody(body: AsyncIterable<Buffer>, shown: string, o: HttpCameraOptions, watch: PictureWatch): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  watch.waiting = () => `a picture that never ended (${size} bytes)`;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_IMAGE_BYTES) throw new CameraFailure('camera_failed', `${shown} sent a picture over ${MAX_IMAGE_BYTES} bytes`);
      parts.push(chunk);
    }
  } catch (err) {
    if (err instanceof CameraFailure) throw err;
    if (o.signal.aborted) return Buffer.alloc(0);
    watch.check();
    throw new CameraFailure('camera_failed', `${shown} broke off: ${(err as Error).message}`);
  }
  return Buffer.concat(parts);
}

/** Reads an MJPEG stream part by part, each part offered as a picture. */
async function readMultipart(body: AsyncIterable<Buffer>, cutter: MultipartCutter, o: HttpCameraOptions, shown: string, watch: PictureWatch): Promise<void> {
  watch.waiting = () => cutter.describe();
  try {
    for await (const chunk of body) {
      for (const part of cutter.push(chunk)) watch.offer(part, o.onImage);
    }
  } catch (err) {
    if (err instanceof PartTooLarge) throw new CameraFailure('camera_failed', `${shown} sent ${err.message}: too large for a picture`);
    if (o.signal.aborted) return;
    watch.check();
    throw new CameraFailure('camera_failed', `${shown} broke off the MJPEG stream: ${(err as Error).message}`);
  }
}
