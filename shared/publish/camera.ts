import { stat } from 'node:fs/promises';
import { EventEmitter } from 'node:events';
import { InputError } from '../errors';
import { FfmpegNotFoundError, findFfmpeg } from '../media/ffmpeg';
import type { SessionOptions } from '../signaling/session';
import { emitGuarded } from '../util/emit-guarded';
import type { CameraCodec } from './camera-args';
import { CameraSource, type CameraSourceStats } from './camera-source';
import { checkCamera, type CameraSettings, type CheckedCamera } from './camera-settings';
import { describeInput } from './camera-url';
import { ffmpegEncoders } from './ffmpeg-source';
import { openVideoSource } from './open-source';
import { Publisher } from './publisher';
import type { VideoSource } from './source';
import { PublishError } from './errors';

/** What a camera publisher shows: its state and why. */
export type CameraState = 'connecting' | 'live' | 'camera_lost' | 'rejoining' | 'stopped';

/** A change of a camera publisher's state (one JSON status line of `vision-streaming publish`). */
export interface CameraStatus {
  event: 'status';
  state: CameraState;
  /** Why, in words (no password: camera URLs are masked). */
  reason?: string;
  /** The camera's stream id in the room (its client_id); a rejoin gets a new one. */
  stream_id: string | null;
  /** The source, masked (`rtsp://user:***@host/...`). */
  source: string;
  /** Codec sent and whether the camera's own H.264 is relayed without re-encoding. */
  codec: CameraCodec;
  relayed: boolean;
  /** With camera_lost: when the next attempt comes. */
  retry_in_ms?: number;
  time: string;
}

/** Settings of one camera publisher; the signaling options (ticket, rejoin, loopback) are those of a publisher. */
export interface CameraOptions extends CameraSettings, Omit<SessionOptions, 'role' | 'video'> {}

const ENCODER: Record<CameraCodec, string> = { VP8: 'libvpx', H264: 'libx264' };

/**
 * Opens a camera's video source: checks the settings, the device, and finds ffmpeg (every camera
 * needs one at run time; only an .ivf/.h264 file goes without). Errors say what is missing.
 */
export async function openCameraSource(o: CameraSettings): Promise<{ source: VideoSource; checked: CheckedCamera }> {
  const c = checkCamera(o);
  if (c.input.kind === 'file') {
    await stat(c.input.file).catch(() => {
      throw new InputError('invalid_input', `no such file: ${c.input.kind === 'file' ? c.input.file : ''}`, { field: 'source', limit: 'an existing file, a camera URL or /dev/videoN' });
    });
    const source = await openVideoSource({ file: c.input.file, loop: true, codec: c.codec, fps: c.fps, bitRateKbps: c.bitRateKbps, width: c.width, height: c.height, keyFramePhases: c.keyFramePhases, ffmpegPath: o.ffmpegPath, env: o.env, cacheDir: o.cacheDir });
    return { source, checked: c };
  }
  if (c.input.kind === 'v4l2') {
    const device = c.input.device;
    const st = await stat(device).catch(() => undefined);
    if (!st) throw new InputError('invalid_input', `no such device: ${device} (is the webcam plugged in, and may this user read it? try: ls -l /dev/video*)`, { field: 'source', limit: 'an existing /dev/videoN' });
    if (!st.isCharacterDevice()) throw new InputError('invalid_input', `${device} is not a device`, { field: 'source', limit: 'a V4L2 character device' });
  }
  let ffmpegPath: string;
  try {
    ffmpegPath = await findFfmpeg(o);
  } catch (err) {
    if (err instanceof FfmpegNotFoundError) throw FfmpegNotFoundError.from([...err.tried, 'publishing a camera needs ffmpeg at run time (to read RTSP/V4L2 and to encode)']);
    throw err;
  }
  if (!c.relay) {
    const encoders = await ffmpegEncoders(ffmpegPath);
    if (!encoders.has(ENCODER[c.codec])) throw new PublishError('encoder_missing', `the ffmpeg at hand has no ${ENCODER[c.codec]} encoder, needed for ${c.codec}`);
  }
  const source = new CameraSource({
    input: c.input,
    ffmpegPath,
    encoding: { codec: c.codec, fps: c.fps, bitRateKbps: c.bitRateKbps, width: c.width, height: c.height, keyFramePhases: c.keyFramePhases },
    relay: c.relay,
    stallMs: c.stallMs,
    backoff: { baseMs: 1000, maxMs: c.maxRetryMs },
    repeatMs: 1000,
    snapshotIntervalMs: c.snapshotIntervalMs,
  });
  return { source, checked: c };
}

/** Events of a camera publisher. */
export interface CameraPublisherEvents {
  status: [CameraStatus];
  error: [Error];
}

/**
 * One camera published into a room: its source (retried while the room session stays), a
 * publisher (whose session rejoins by itself), and one visible state with its reason.
 */
export class CameraPublisher extends EventEmitter<CameraPublisherEvents> {
  #publisher?: Publisher;
  #source?: VideoSource;
  #checked?: CheckedCamera;
  #shown = '';
  #camera: 'connecting' | 'live' | 'lost' = 'connecting';
  #cameraReason?: string;
  #retryIn?: number;
  #session: 'joining' | 'connected' | 'rejoining' = 'joining';
  #sessionReason?: string;
  #last?: CameraStatus;
  #started = false;
  #stopped = false;
  #refusalReported = false;
  #stopping?: Promise<void>;
  /** The source's close: this publisher opened it, so it closes it, once. */
  #sourceClosed?: Promise<void>;
  readonly #options: CameraOptions;

  constructor(options: CameraOptions) {
    super();
    this.#options = options;
    // Settings are checked at once, so that a bad value is refused before anything starts.
    this.#checked = checkCamera(options);
    this.#shown = describeInput(this.#checked.input);
  }

  /** The camera's stream id in the room (its client_id); undefined before the first join. */
  get streamId(): string | undefined {
    return this.#publisher?.clientId;
  }

  /** The latest status. */
  get status(): CameraStatus | undefined {
    return this.#last;
  }

  /** Counters of the camera source (frames, retries, pictures dropped). */
  get stats(): CameraSourceStats | undefined {
    return this.#source instanceof CameraSource ? this.#source.stats : undefined;
  }

  /**
   * Opens the source, joins the room; resolves at the first join, then stays up until stop(). A
   * stop() while it is under way (opening, joining, backing off) ends it at once: it rejects with a
   * PublishError 'stopped' and leaves nothing running.
   */
  async start(): Promise<void> {
    if (this.#stopping && !this.#started) throw stoppedError();
    if (this.#started || this.#stopped) throw new InputError('invalid_input', 'a camera publisher starts once', { field: 'start', limit: 'one start' });
    this.#started = true;
    this.#emit();
    let opened: Awaited<ReturnType<typeof openCameraSource>>;
    try {
      opened = await openCameraSource(this.#options);
    } catch (err) {
      if (this.#stopping) throw stoppedError();
      this.#stopped = true;
      this.#emit((err as Error).message);
      throw err;
    }
    const { source, checked } = opened;
    if (this.#stopping) {
      // stop() came while the source was opening: it found nothing to close, so the start does.
      await source.close().catch(() => undefined);
      throw stoppedError();
    }
    this.#source = source;
    this.#checked = checked;
    if (!(source instanceof CameraSource)) this.#camera = 'live';
    if (source instanceof CameraSource) {
      source.on('state', (s) => {
        if (s.state === 'live') this.#refusalReported = false;
        if (s.state === 'lost' && s.refused && !this.#refusalReported) {
          // Said once as an error (a Catch node, stderr); the retries that follow show in the state only.
          this.#refusalReported = true;
          emitGuarded(this, 'error', [new PublishError('camera_refused', `${s.reason}; retrying every ${Math.round(checked.maxRetryMs / 1000)} s`, { retryable: true })]);
        }
        this.#camera = s.state;
        this.#cameraReason = s.state === 'lost' ? s.reason : undefined;
        this.#retryIn = s.state === 'lost' ? s.retryInMs : undefined;
        this.#emit();
      });
    }
    const o = this.#options;
    const session = { getTicket: o.getTicket, rejoin: o.rejoin, timeouts: o.timeouts, loopbackOnly: o.loopbackOnly, iceServers: o.iceServers, keyframeRetryMs: o.keyframeRetryMs, channelId: o.channelId };
    const publisher = new Publisher({ ...session, source, bitRateKbps: checked.bitRateKbps });
    this.#publisher = publisher;
    publisher.on('connected', () => {
      this.#session = 'connected';
      this.#sessionReason = undefined;
      this.#emit();
    });
    publisher.on('rejoining', (i) => {
      this.#session = 'rejoining';
      this.#sessionReason = `room session lost (${i.error.message}); attempt ${i.attempt} in ${i.delayMs} ms`;
      this.#emit();
    });
    publisher.on('closed', ({ error }) => {
      // The publisher ended by itself (the source ran out, the session gave up): the source goes with it.
      void this.#closeSource();
      if (this.#stopped) return;
      this.#stopped = true;
      if (error && this.listenerCount('error') > 0) emitGuarded(this, 'error', [error]);
      this.#emit(error ? `stopped: ${error.message}` : 'the source ended');
    });
    try {
      await publisher.start();
    } catch (err) {
      const asked = this.#stopping !== undefined;
      this.#stopped = true;
      await publisher.close().catch(() => undefined);
      await this.#closeSource();
      if (asked) throw stoppedError();
      this.#emit(`could not join the room: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Pushes a JPEG or PNG picture (a camera without a source URL); throws an InputError for anything else. */
  push(image: unknown, field = 'payload'): void {
    if (this.#source instanceof CameraSource) this.#source.push(image, field);
    else if (!this.#source && this.#checked?.input.kind === 'push') throw new InputError('invalid_input', 'the camera is not started', { field, limit: 'a started camera' });
    else throw new InputError('invalid_input', 'this camera reads its own source; pictures can only be pushed to a camera without a source URL', { field, limit: 'no source' });
  }

  /** Leaves the room and stops the camera's ffmpeg child; cuts a start under way short. Idempotent. */
  stop(reason = 'stopped'): Promise<void> {
    this.#stopping ??= (async () => {
      const was = this.#stopped;
      this.#stopped = true;
      await this.#publisher?.close();
      await this.#closeSource();
      if (!was) this.#emit(reason);
    })();
    return this.#stopping;
  }

  /** Closes the source this publisher opened, once, whichever way the camera ends. */
  #closeSource(): Promise<void> {
    const source = this.#source;
    if (!source) return Promise.resolve();
    this.#sourceClosed ??= source.close().catch(() => undefined);
    return this.#sourceClosed;
  }

  #state(): CameraState {
    if (this.#stopped) return 'stopped';
    if (this.#session === 'rejoining') return 'rejoining';
    if (this.#camera === 'lost') return 'camera_lost';
    if (this.#session === 'connected' && this.#camera === 'live') return 'live';
    return 'connecting';
  }

  #reason(state: CameraState, stopReason?: string): string | undefined {
    if (state === 'stopped') return stopReason;
    if (state === 'rejoining') return this.#sessionReason;
    if (state === 'camera_lost') return this.#cameraReason;
    if (state === 'connecting') return this.#session === 'connected' ? 'waiting for the camera' : 'joining the room';
    return undefined;
  }

  #emit(stopReason?: string): void {
    const state = this.#state();
    const reason = this.#reason(state, stopReason);
    if (this.#last && this.#last.state === state && this.#last.reason === reason) return;
    const c = this.#checked!;
    const status: CameraStatus = {
      event: 'status',
      state,
      ...(reason ? { reason } : {}),
      stream_id: this.streamId ?? null,
      source: this.#shown,
      codec: c.codec,
      relayed: this.#source instanceof CameraSource ? this.#source.relayed : c.relay,
      ...(state === 'camera_lost' && this.#retryIn !== undefined ? { retry_in_ms: this.#retryIn } : {}),
      time: new Date().toISOString(),
    };
    this.#last = status;
    emitGuarded(this, 'status', [status]);
  }
}

/** What start() rejects with when stop() cut it short: asked for, not a failure. */
function stoppedError(): PublishError {
  return new PublishError('stopped', 'the camera was stopped before it joined the room');
}
