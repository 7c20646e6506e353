import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Agent } from 'undici';
import { InputError } from '../errors';
import { isKeyFrame } from '../frames/key-frame';
import { imageDimensions } from '../image/dimensions';
import { MAX_IMAGE_PIXELS, PIXEL_LIMIT_TEXT, type ImageMime } from '../image/limits';
import { sniffImage } from '../image/sniff';
import { cameraArgs, encodedPhases, imageEncoderArgs, imagePart, type CameraEncoding } from './camera-args';
import { CameraFailure } from './camera-failure';
import { maskText, maskUrl, urlSecrets, userInfo, type CameraInput } from './camera-url';
import { spawnFfmpeg, stopChild } from './ffmpeg-child';
import { KeyFramePhases, type KeyFramePhaseStats } from './key-frame-phases';
import { encodedFrames, phaseStreams } from './phase-reading';
import { ParameterSetKeeper } from './h264-relay';
import { readHttpCamera } from './http-camera';
import { RtspAuthRelay } from './rtsp-auth-relay';
import type { SourceFrame, VideoSource } from './source';

/** A camera source's own state: reading, or lost and waiting to retry. */
export type CameraSourceState =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'lost'; reason: string; retryInMs: number; refused: boolean };

/** Events of a camera source. */
export interface CameraSourceEvents {
  state: [CameraSourceState];
}

/** Counters of a camera source. */
export interface CameraSourceStats {
  /** Frames handed to the publisher. */
  frames: number;
  /** Connections to the camera that ended and were retried. */
  retries: number;
  /** Pushed (or MJPEG) pictures dropped because a newer one came before the encoder was free. */
  dropped: number;
  /** Pictures received (pushed or read from an HTTP camera). */
  images: number;
}

/** Settings of a camera source (defaults filled in by openCamera). */
export interface CameraSourceOptions {
  input: Exclude<CameraInput, { kind: 'file' }>;
  ffmpegPath: string;
  encoding: CameraEncoding;
  /** Send an H.264 RTSP camera as it is (no re-encoding). */
  relay: boolean;
  /** No frame for this long counts as a stall (ms). */
  stallMs: number;
  /** Retry delays: doubling from the first, capped at the second (ms). */
  backoff: { baseMs: number; maxMs: number };
  /** The last picture is sent again at this interval while no new one comes (pushed images, snapshots; ms). */
  repeatMs: number;
  /** Time between two requests to a snapshot URL (ms). */
  snapshotIntervalMs: number;
}

const CLOCK_PER_MS = 90;

/**
 * A live camera as a video source that never ends by itself: each connection to the camera runs
 * one ffmpeg child (relaying or encoding); a connection that fails, ends or stalls is retried with
 * a capped backoff, and frames carry wall-clock timestamps so the stream stays continuous.
 */
export class CameraSource extends EventEmitter<CameraSourceEvents> implements VideoSource {
  readonly codec: 'VP8' | 'H264';
  readonly stats: CameraSourceStats = { frames: 0, retries: 0, dropped: 0, images: 0 };
  readonly #o: CameraSourceOptions;
  readonly #secrets: string[];
  readonly #stop = new AbortController();
  readonly #t0 = performance.now();
  #child?: ChildProcess;
  #relay: boolean;
  #running = false;
  #dispatcher?: Agent;
  // Pushed pictures: the newest waiting to be encoded, and the last one sent (repeated while idle).
  #pending?: Buffer;
  #last?: Buffer;
  #wake?: () => void;
  readonly #phases = new KeyFramePhases<Buffer>((unit) => isKeyFrame(this.codec, unit));

  constructor(options: CameraSourceOptions) {
    super();
    this.#o = options;
    this.codec = options.encoding.codec;
    this.#relay = options.relay;
    const input = options.input;
    this.#secrets = input.kind === 'rtsp' || input.kind === 'http' ? urlSecrets(input.url) : [];
  }

  /** True when this source sends the camera's H.264 as it is. */
  get relayed(): boolean {
    return this.#relay;
  }

  /** Hands a JPEG or PNG picture to a source of pushed images; the newest wins while the encoder is busy. */
  push(image: unknown, field = 'payload'): void {
    if (this.#o.input.kind !== 'push') throw new InputError('invalid_input', 'this camera reads its own source; pictures can only be pushed to a camera without a source URL', { field, limit: 'no source' });
    const buf = Buffer.isBuffer(image) ? image : image instanceof Uint8Array ? Buffer.from(image) : undefined;
    const sniffed = buf ? sniffImage(buf) : undefined;
    if (!buf || !sniffed) throw new InputError('invalid_input', `${field} is not a JPEG or PNG picture`, { field, limit: 'JPEG or PNG bytes' });
    if (buf.length > 8 * 1024 * 1024) throw new InputError('invalid_input', `${field} is over 8 MiB`, { field, limit: '<= 8 MiB' });
    if (!withinPixelLimit(buf, sniffed.mime)) throw new InputError('invalid_input', `${field} has no readable size or is over ${PIXEL_LIMIT_TEXT}`, { field, limit: PIXEL_LIMIT_TEXT });
    this.stats.images++;
    this.#queue(buf);
  }

  /** Key-frame requests received, and those answered by another phase's key frame (see keyFramePhases). */
  get keyFrames(): KeyFramePhaseStats {
    return this.#phases.stats;
  }

  /** A viewer asked for a key frame: an encoding camera with key-frame phases sends the next one any phase has. */
  requestKeyFrame(): void {
    this.#phases.request();
  }

  /** Frames until close(); camera failures are retried, never thrown. */
  async *frames(): AsyncIterable<SourceFrame> {
    if (this.#running) throw new InputError('invalid_input', 'a camera source is read by one publisher only', { field: 'source', limit: 'one reader' });
    this.#running = true;
    let failures = 0;
    try {
      while (!this.#stop.signal.aborted) {
        this.emit('state', { state: 'connecting' });
        let live = false;
        let reason: CameraFailure;
        try {
          for await (const data of this.#connect()) {
            if (!live) {
              live = true;
              failures = 0;
              this.emit('state', { state: 'live' });
            }
            this.stats.frames++;
            yield { data, timestamp: Math.round((performance.now() - this.#t0) * CLOCK_PER_MS) };
          }
          reason = new CameraFailure('camera_failed', 'the camera ended the stream');
        } catch (err) {
          reason = err instanceof CameraFailure ? err : new CameraFailure('camera_failed', (err as Error).message ?? String(err));
        }
        if (this.#stop.signal.aborted) break;
        failures++;
        this.stats.retries++;
        const { baseMs, maxMs } = this.#o.backoff;
        const delay = reason.refused ? maxMs : Math.min(maxMs, baseMs * 2 ** (failures - 1));
        // A little jitter, so cameras behind one power cut do not all reconnect in step.
        const retryInMs = Math.round(delay * (0.8 + Math.random() * 0.2));
        this.emit('state', { state: 'lost', reason: this.#mask(reason.message), retryInMs, refused: reason.refused });
        await this.#sleep(retryInMs);
      }
    } finally {
      await this.close();
    }
  }

  /** Stops the camera's ffmpeg child and any HTTP request. Idempotent. */
  async close(): Promise<void> {
    this.#stop.abort();
    this.#wake?.();
    const child = this.#child;
    if (child) await stopChild(child);
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    await dispatcher?.destroy().catch(() => undefined);
  }

  #mask(text: string): string {
    return maskText(text, this.#secrets).slice(0, 500);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stop.signal.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.#stop.signal.addEventListener('abort', done, { once: true });
    });
  }

  /** One connection to the camera: its frames, then a CameraFailure saying why it ended. */
  async *#connect(): AsyncGenerator<Buffer> {
    const input = this.#o.input;
    if (input.kind === 'rtsp' || input.kind === 'v4l2') {
      const relay = this.#relay && input.kind === 'rtsp';
      if (input.kind === 'rtsp' && userInfo(input.url) !== undefined) {
        yield* this.#runWithCredentials(input, relay);
        return;
      }
      yield* this.#run(cameraArgs(input, this.#o.encoding, relay), relay, undefined);
      return;
    }
    if (input.kind === 'push') {
      yield* this.#runImages(undefined);
      return;
    }
    yield* this.#runImages(input.url);
  }

  /**
   * An RTSP camera with credentials: ffmpeg reads it through a loopback relay of this attempt that
   * answers the camera's challenge, so the password is on no command line. Failures name the camera.
   */
  async *#runWithCredentials(input: Extract<CameraInput, { kind: 'rtsp' }>, relay: boolean): AsyncGenerator<Buffer> {
    const auth = await RtspAuthRelay.start(input.url);
    try {
      yield* this.#run(cameraArgs({ ...input, url: auth.url }, this.#o.encoding, relay), relay, undefined);
    } catch (err) {
      if (!(err instanceof CameraFailure)) throw err;
      // The relay's own reason (camera unreachable) says more than ffmpeg's view of a cut connection.
      if (auth.failure && !err.refused) throw new CameraFailure('camera_failed', this.#mask(auth.failure));
      const shown = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(maskUrl(input.url))?.[0] ?? 'the camera';
      throw new CameraFailure(err.refused || auth.refused ? 'camera_refused' : 'camera_failed', err.message.split(auth.origin).join(shown));
    } finally {
      auth.close();
    }
  }

  /**
   * Encodes pictures (pushed, or read from an HTTP camera) with an ffmpeg fed on its stdin. The
   * encoder's watchdog only sees pictures written to it (the last one is repeated while none
   * comes), so an HTTP camera's stall is the reader's: no picture taken within stallMs.
   */
  async *#runImages(url: string | undefined): AsyncGenerator<Buffer> {
    const attempt = new AbortController();
    const stop = (): void => attempt.abort();
    this.#stop.signal.addEventListener('abort', stop, { once: true });
    let readerFailure: unknown;
    if (url) {
      this.#dispatcher ??= new Agent({ connect: { timeout: this.#o.stallMs } });
      this.#pending = undefined;
      void readHttpCamera({ url, onImage: (img) => this.#offer(img), stallMs: this.#o.stallMs, snapshotIntervalMs: this.#o.snapshotIntervalMs, signal: attempt.signal, dispatcher: this.#dispatcher }).catch((err: unknown) => {
        readerFailure = err;
        attempt.abort();
        this.#wake?.();
      });
    }
    // The encoder starts with the first picture: its input format (JPEG or PNG) is fixed at start.
    const first = await this.#nextPicture(attempt.signal, false);
    if (!first) {
      this.#stop.signal.removeEventListener('abort', stop);
      if (readerFailure) throw readerFailure;
      return;
    }
    const format = sniffImage(first)!.mime === 'image/png' ? 'png' : 'jpeg';
    let written = 0;
    let produced = 0;
    let formatChanged = false;
    const writer = async (child: ChildProcess, noteWrite: () => void): Promise<void> => {
      let picture: Buffer | undefined = first;
      while (picture && !attempt.signal.aborted) {
        if ((sniffImage(picture)!.mime === 'image/png' ? 'png' : 'jpeg') !== format) {
          // A new encoder for the new format; this picture goes first.
          this.#pending ??= picture;
          formatChanged = true;
          attempt.abort();
          break;
        }
        // At most two pictures inside the encoder: newer ones wait in the one-slot #pending (newest wins).
        const deadline = Date.now() + 1000;
        while (written - produced >= 2 && Date.now() < deadline && !attempt.signal.aborted) await new Promise((r) => setTimeout(r, 10));
        if (attempt.signal.aborted) break;
        noteWrite();
        const ok = child.stdin!.write(imagePart(picture));
        written++;
        this.#last = picture;
        if (!ok) await new Promise<void>((resolve) => child.stdin!.once('drain', resolve));
        picture = await this.#nextPicture(attempt.signal, true);
      }
      child.stdin?.end();
    };
    try {
      for await (const data of this.#run(imageEncoderArgs(format, this.#o.encoding), false, writer, attempt.signal)) {
        produced++;
        yield data;
      }
    } catch (err) {
      if (!(readerFailure || formatChanged)) throw err;
    } finally {
      this.#stop.signal.removeEventListener('abort', stop);
      attempt.abort();
    }
    if (readerFailure) throw readerFailure;
    if (formatChanged) throw new CameraFailure('camera_failed', 'the pictures changed format (JPEG/PNG): encoder restarted');
  }

  /** A picture an HTTP camera sent: to the encoder only within the pixel limit, as every image the package decodes; else why not. */
  #offer(image: Buffer): string | undefined {
    this.stats.images++;
    const sniffed = sniffImage(image);
    const size = sniffed && imageDimensions(image, sniffed.mime);
    if (!size || size.width <= 0 || size.height <= 0) {
      this.stats.dropped++;
      return `pictures without a readable size (the last ${image.length} bytes)`;
    }
    if (size.width * size.height > MAX_IMAGE_PIXELS) {
      this.stats.dropped++;
      return `pictures too large (the last ${size.width}x${size.height}, over ${PIXEL_LIMIT_TEXT})`;
    }
    this.#queue(image);
    return undefined;
  }

  /** The newest picture waits for the encoder; the one it replaces is dropped. */
  #queue(image: Buffer): void {
    if (this.#pending) this.stats.dropped++;
    this.#pending = image;
    this.#wake?.();
  }

  /** The next picture to encode: a new one, or (when `repeat`) the last one again after repeatMs. Undefined when stopped. */
  async #nextPicture(signal: AbortSignal, repeat: boolean): Promise<Buffer | undefined> {
    for (;;) {
      if (signal.aborted || this.#stop.signal.aborted) return undefined;
      const p = this.#pending;
      if (p) {
        this.#pending = undefined;
        return p;
      }
      const timedOut = await new Promise<boolean>((resolve) => {
        const t = repeat && this.#last ? setTimeout(() => resolve(true), this.#o.repeatMs) : undefined;
        const wake = (): void => {
          if (t) clearTimeout(t);
          signal.removeEventListener('abort', wake);
          this.#wake = undefined;
          resolve(false);
        };
        this.#wake = wake;
        signal.addEventListener('abort', wake, { once: true });
      });
      if (timedOut) {
        this.#wake = undefined;
        if (this.#last) return this.#last;
      }
    }
  }

  /**
   * Runs one ffmpeg child and yields its frames. A stall (no frame for stallMs; the first may take
   * twice as long, an RTSP camera waits for its next key frame) kills the child. Ends by throwing
   * a CameraFailure whose text is masked (ffmpeg echoes URLs with their passwords).
   */
  async *#run(args: string[], relay: boolean, writer: ((child: ChildProcess, noteWrite: () => void) => Promise<void>) | undefined, attempt?: AbortSignal): AsyncGenerator<Buffer> {
    const outputCount = relay ? 1 : encodedPhases(this.#o.encoding);
    const child = spawnFfmpeg(this.#o.ffmpegPath, args, writer ? 'pipe' : 'ignore', outputCount);
    this.#child = child;
    let stderr = '';
    let stalled: string | undefined;
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.stdin?.on('error', () => undefined);
    const exit = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', (err) => {
        stderr += err.message;
        resolve(-1);
      });
    });
    const kill = (): void => void stopChild(child, 500);
    attempt?.addEventListener('abort', kill, { once: true });
    if (this.#stop.signal.aborted) kill();
    let lastFrame = performance.now() + this.#o.stallMs;
    // Fed by pictures: a stall is a picture that went in with nothing out; waiting for pictures is none.
    let answered = true;
    let writtenAt = 0;
    const noteWrite = (): void => {
      if (!answered) return;
      answered = false;
      writtenAt = performance.now();
    };
    if (writer) void writer(child, noteWrite).catch(() => undefined);
    const watchdog = setInterval(() => {
      const since = writer ? (answered ? performance.now() : writtenAt) : lastFrame;
      if (performance.now() - since > this.#o.stallMs) {
        stalled = `no frame from the camera for ${Math.round(this.#o.stallMs / 1000)} s`;
        kill();
      }
    }, 250);
    const keeper = relay ? new ParameterSetKeeper() : undefined;
    const outputs = phaseStreams(child, outputCount).map((stream) => encodedFrames(stream, this.codec === 'VP8' && !relay));
    try {
      for await (const unit of outputCount > 1 ? this.#phases.merge(outputs) : outputs[0]) {
        const data = keeper ? keeper.take(unit) : unit;
        lastFrame = performance.now();
        answered = true;
        if (data) yield data;
        if (this.#stop.signal.aborted) return;
      }
    } catch {
      // The child was killed (stall, stop): the reason is told below.
    } finally {
      clearInterval(watchdog);
      attempt?.removeEventListener('abort', kill);
      await stopChild(child, 500);
      if (this.#child === child) this.#child = undefined;
    }
    if (this.#stop.signal.aborted) return;
    const code = await exit;
    if (stalled) throw new CameraFailure('camera_failed', stalled);
    throw this.#failure(code, stderr, relay);
  }

  #failure(code: number | null, stderr: string, relay: boolean): CameraFailure {
    const text = stderr.trim().split('\n').slice(-3).join(' | ');
    // Words, not bare 401/403: those digits are often part of an address's port (127.0.0.1:40123).
    if (/Unauthorized|authorization failed|Forbidden|access denied|failed: 40[13]\b/i.test(text)) return new CameraFailure('camera_refused', this.#mask(`the camera refused the credentials: ${text}`));
    if (relay && /h264_mp4toannexb|bitstream filter|Codec '.*' is not supported/i.test(text)) {
      // Not an H.264 camera (H.265, MJPEG over RTSP ...): it is encoded from now on.
      this.#relay = false;
      return new CameraFailure('camera_failed', this.#mask(`the camera does not send H.264, so it cannot be relayed as it is; encoding it instead (${text})`));
    }
    if (/No such file or directory|Cannot open/i.test(text) && this.#o.input.kind === 'v4l2') return new CameraFailure('camera_failed', `cannot open ${this.#o.input.device}: ${text}`);
    return new CameraFailure('camera_failed', this.#mask(`ffmpeg ended (code ${code}): ${text || 'no message'}`));
  }
}

/** True when a picture's header gives a size within MAX_IMAGE_PIXELS. */
function withinPixelLimit(image: Buffer, mime: ImageMime): boolean {
  const size = imageDimensions(image, mime);
  return !!size && size.width > 0 && size.height > 0 && size.width * size.height <= MAX_IMAGE_PIXELS;
}
