import { Agent, request } from 'undici';
import { sniffImage } from '../image/sniff';
import { CameraFailure } from './camera-failure';
import { maskUrl } from './camera-url';

/** The largest picture accepted from an HTTP camera (a 4K JPEG is well below). */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

/** How an HTTP camera is read. */
export interface HttpCameraOptions {
  url: string;
  /** Called with each JPEG or PNG picture. */
  onImage: (image: Buffer) => void;
  /** No picture for this long counts as a stall. */
  stallMs: number;
  /** Time between two snapshot requests (a camera that serves single pictures). */
  snapshotIntervalMs: number;
  signal: AbortSignal;
  dispatcher: Agent;
}

/**
 * Reads an HTTP camera until it fails or `signal` aborts: an MJPEG stream
 * (multipart/x-mixed-replace) part by part, or a JPEG/PNG snapshot URL polled. Credentials in the
 * URL become a Basic Authorization header. Always ends by throwing a CameraFailure (or on abort).
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
  for (;;) {
    const started = Date.now();
    const stall = new AbortController();
    const timer = setTimeout(() => stall.abort(), o.stallMs);
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, { headers, signal: AbortSignal.any([o.signal, stall.signal]), dispatcher: o.dispatcher, headersTimeout: o.stallMs, bodyTimeout: o.stallMs });
    } catch (err) {
      clearTimeout(timer);
      if (o.signal.aborted) return;
      throw new CameraFailure(stall.signal.aborted ? `no answer from ${shown} within ${o.stallMs / 1000} s` : `cannot reach ${shown}: ${(err as Error).message}`);
    }
    clearTimeout(timer);
    const type = String(res.headers['content-type'] ?? '').toLowerCase();
    if (res.statusCode === 401 || res.statusCode === 403) {
      await res.body.dump().catch(() => undefined);
      throw new CameraFailure(`${shown} refused the credentials (HTTP ${res.statusCode})`, true);
    }
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => undefined);
      throw new CameraFailure(`${shown} answered HTTP ${res.statusCode}`);
    }
    if (type.startsWith('multipart/')) {
      const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
      if (!boundary) throw new CameraFailure(`${shown} sends multipart without a boundary`);
      await readMultipart(res.body, boundary, o, shown);
      if (o.signal.aborted) return;
      throw new CameraFailure(`${shown} ended the MJPEG stream`);
    }
    const body = await readBody(res.body, shown, o);
    if (o.signal.aborted) return;
    if (!sniffImage(body)) throw new CameraFailure(`${shown} answered ${type || 'no content type'}, neither an MJPEG stream nor a JPEG/PNG picture`);
    o.onImage(body);
    const wait = o.snapshotIntervalMs - (Date.now() - started);
    if (wait > 0) await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, wait);
      o.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
    if (o.signal.aborted) return;
  }
}

async function readBody(body: AsyncIterable<Buffer>, shown: string, o: HttpCameraOptions): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_IMAGE_BYTES) throw new CameraFailure(`${shown} sent a picture over ${MAX_IMAGE_BYTES} bytes`);
      parts.push(chunk);
    }
  } catch (err) {
    if (err instanceof CameraFailure) throw err;
    if (o.signal.aborted) return Buffer.alloc(0);
    throw new CameraFailure(`${shown} broke off: ${(err as Error).message}`);
  }
  return Buffer.concat(parts);
}

/** Cuts a multipart/x-mixed-replace body into its pictures; a part's Content-Length, when given, ends it without waiting for the next boundary. */
async function readMultipart(body: AsyncIterable<Buffer>, boundary: string, o: HttpCameraOptions, shown: string): Promise<void> {
  const delimiter = Buffer.from(`--${boundary}`);
  let buf: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of body) {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (;;) {
        const start = buf.indexOf(delimiter);
        if (start < 0) break;
        const headEnd = buf.indexOf('\r\n\r\n', start + delimiter.length);
        if (headEnd < 0) break;
        const head = buf.subarray(start + delimiter.length, headEnd).toString('latin1');
        const bodyStart = headEnd + 4;
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
        let bodyEnd: number;
        let next: number;
        if (Number.isFinite(length)) {
          if (buf.length < bodyStart + length) break;
          bodyEnd = bodyStart + length;
          next = bodyEnd;
        } else {
          const after = buf.indexOf(delimiter, bodyStart);
          if (after < 0) break;
          bodyEnd = after;
          next = after;
          while (bodyEnd > bodyStart && (buf[bodyEnd - 1] === 0x0a || buf[bodyEnd - 1] === 0x0d)) bodyEnd--;
        }
        const picture = Buffer.from(buf.subarray(bodyStart, bodyEnd));
        buf = buf.subarray(next);
        if (sniffImage(picture)) o.onImage(picture);
      }
      if (buf.length > MAX_IMAGE_BYTES) throw new CameraFailure(`${shown} sent a part over ${MAX_IMAGE_BYTES} bytes`);
    }
  } catch (err) {
    if (err instanceof CameraFailure) throw err;
    if (o.signal.aborted) return;
    throw new CameraFailure(`${shown} broke off the MJPEG stream: ${(err as Error).message}`);
  }
}
