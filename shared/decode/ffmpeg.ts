import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { ivfFileHeader, ivfFrameHeader } from '../frames/ivf';
import type { EncodedFrame, VideoCodec } from '../frames/types';
import { childEnv } from '../util/child-env';
import { DecoderFailedError, wrongCodec } from './errors';
import { connectLocalOutput, PictureInput } from './picture-input';
import { PicturePool } from './picture-pool';
import type { FrameDecoder, Picture } from './types';

/** stdout is null when it goes to a local socket instead of a pipe. */
type Child = ChildProcessByStdio<Writable, Readable | null, Readable>;

/** A wanted frame whose picture never came out (the decoder refused it) resolves undefined after this. */
const WANTED_TIMEOUT_MS = 5000;
const STDERR_KEEP = 2000;
/**
 * Unwanted frames wait in the decoder and go down the pipe together with the next wanted frame, or
 * once this many wait: every write wakes ffmpeg up, and on a busy machine the wake-ups cost more than
 * the bytes. A wanted frame is never held, so its picture comes no later; at 15 fps this holds about
 * half a second of frames, which ffmpeg then decodes in one go (about 1 ms a frame).
 */
const MAX_HELD_FRAMES = 8;

/**
 * The ffmpeg arguments of a decoder child. Frames go in as IVF whose timestamp is 2*seq + want:
 * ffmpeg's select filter passes only the odd ones (the wanted frames), so unwanted pictures are never
 * converted or piped, and showinfo logs each passing picture's timestamp and size on stderr, which
 * tells which frame a picture on stdout belongs to even when the decoder drops one. Wanted pictures
 * come out as RGB: ffmpeg's converter is many times cheaper than doing it in JS, and RGB is what
 * the JPEG encoder takes. `checksums: false` (for an ffmpeg whose showinfo can skip them) saves the
 * checksums of every picture that showinfo otherwise works out and nobody reads: about 3 ms a picture.
 */
export function ffmpegDecodeArgs(options: { checksums?: boolean } = {}): string[] {
  return [
    '-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info',
    // Frame threading delays every picture by one frame per thread (136 to 602 ms measured).
    '-threads', '1',
    // Probing would read ahead; one tiny read is enough for IVF. -fflags nobuffer lost a GOP on IVF.
    '-probesize', '32', '-analyzeduration', '0',
    '-copyts', '-flags', 'low_delay',
    '-f', 'ivf', '-i', 'pipe:0',
    '-threads', '1',
    // setpts after showinfo: output timestamps that only grow, whatever time base the muxer picks.
    '-vf', `select=mod(pts\\,2),${options.checksums === false ? 'showinfo=checksum=0' : 'showinfo'},setpts=N/TB`,
    '-vsync', 'passthrough',
    '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-flush_packets', '1', '-avioflags', 'direct', 'pipe:1',
  ];
}

const checksumOption = new Map<string, Promise<boolean>>();

/** Whether this ffmpeg's showinfo filter can skip its checksums (an option older builds lack); asked once per binary. */
export function showinfoCanSkipChecksums(ffmpegPath: string): Promise<boolean> {
  let known = checksumOption.get(ffmpegPath);
  if (!known) {
    known = new Promise<boolean>((resolve) => {
      execFile(ffmpegPath, ['-hide_banner', '-h', 'filter=showinfo'], { timeout: 10_000, env: childEnv() }, (err, stdout) => {
        resolve(!err && /^\s*checksum\s/m.test(String(stdout)));
      });
    });
    checksumOption.set(ffmpegPath, known);
  }
  return known;
}

const SHOWINFO = /Parsed_showinfo_\d+ @ [^\]]*\] n:\s*\d+ pts:\s*(\d+) .*? s:(\d+)x(\d+)/;

interface Wanted {
  seq: number;
  timestamp: number;
  resolve: (p: Picture | undefined) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

const live = new Set<Child>();
let exitHookInstalled = false;

// Children die with this process even when nobody called close() (their stdin also closes then).
function track(child: Child): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

/**
 * One ffmpeg child and what it has said so far. A child decodes one picture size: newer ffmpeg
 * scales later pictures to the first one's size by itself (-autoscale, which 4.1 does not know),
 * so a size change starts a new child rather than trusting what comes out.
 */
class ChildSession {
  readonly child: Child;
  /** The picture size this child decodes, once the first frame has told it. */
  width?: number;
  height?: number;
  /** Wanted frames fed to this child, oldest first. */
  readonly wanted: Wanted[] = [];
  /** Sizes and sequence numbers from showinfo, waiting for their bytes on stdout. */
  #infos: { seq: number; width: number; height: number }[] = [];
  readonly #input: PictureInput;
  /** The local socket stdout goes to (none when it is a pipe). */
  readonly #output?: Socket;
  #stderrLine = '';
  stderrTail = '';
  headerSent = false;
  /** Set when this child was told to finish (stdin ended) because a newer one took over. */
  retired = false;
  /** How the child ended, once it has and everything it wrote has been read. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly exited: Promise<void>;
  /** Resolves once the child runs; rejects with the error when it cannot be started. */
  readonly started: Promise<void>;

  readonly #pool: PicturePool;

  /** Starts a child whose stdout goes to a local socket where one can be made, else to a pipe. */
  static async spawn(ffmpegPath: string, args: string[], pool: PicturePool): Promise<ChildSession> {
    const input = new PictureInput();
    const output = await connectLocalOutput(input);
    const child = spawn(ffmpegPath, args, { stdio: ['pipe', output?.theirs ?? 'pipe', 'pipe'], env: childEnv() }) as Child;
    // The child has its own copy of its end: this one would keep ours from seeing the child's end.
    output?.theirs.destroy();
    return new ChildSession(child, pool, input, output?.ours);
  }

  /** Starts a child at once, stdout on a pipe (for a switch in the middle of a stream, which cannot wait). */
  static spawnNow(ffmpegPath: string, args: string[], pool: PicturePool): ChildSession {
    const child = spawn(ffmpegPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
    return new ChildSession(child, pool, new PictureInput());
  }

  private constructor(child: Child, pool: PicturePool, input: PictureInput, output?: Socket) {
    this.child = child;
    this.#pool = pool;
    this.#input = input;
    this.#output = output;
    input.onData = () => this.#pair();
    this.started = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    this.started.catch(() => undefined); // a child started mid-stream reports its error through 'error' itself
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    // The socket can still hold pictures when the child is gone: the end counts once both are over.
    const drained = output ? new Promise<void>((resolve) => output.once('close', () => resolve())) : undefined;
    this.ended = Promise.all([exit, drained]).then(([how]) => how);
    this.exited = this.ended.then(() => undefined);
    if (output) output.on('error', () => undefined); // a reset after a crash; the exit is what reports it
    else child.stdout?.on('data', (chunk: Buffer) => input.append(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => this.#onStderr(text));
    child.stdin.on('error', () => undefined); // EPIPE after a crash; the exit handler reports it
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills the child and drops what it has written. */
  kill(): void {
    this.child.stdin.destroy();
    if (this.running) this.child.kill('SIGKILL');
    this.#output?.destroy();
  }

  /** Resolves every wanted frame still waiting (with undefined, or the error). */
  settle(error?: Error): void {
    for (const w of this.wanted.splice(0)) {
      clearTimeout(w.timer);
      if (error) w.reject(error);
      else w.resolve(undefined);
    }
  }

  #onStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEEP);
    const lines = (this.#stderrLine + text).split('\n');
    this.#stderrLine = lines.pop() ?? '';
    for (const line of lines) {
      const m = SHOWINFO.exec(line);
      if (m) this.#infos.push({ seq: (Number(m[1]) - 1) / 2, width: Number(m[2]), height: Number(m[3]) });
    }
    this.#pair();
  }

  // Pairs each showinfo line with its picture's bytes (both come in the same order).
  #pair(): void {
    while (this.#infos.length > 0) {
      const info = this.#infos[0];
      const size = info.width * info.height * 3;
      if (this.#input.length < size) return;
      this.#infos.shift();
      // A copy of exactly the picture, so the caller may keep it while later pictures come in.
      const data = this.#pool.take(size);
      this.#input.takeInto(data);
      this.#deliver(info.seq, info.width, info.height, data);
    }
  }

  #deliver(seq: number, width: number, height: number, data: Uint8Array): void {
    // Wanted frames before this one produced nothing: the decoder dropped them.
    while (this.wanted.length > 0 && this.wanted[0].seq <= seq) {
      const w = this.wanted.shift() as Wanted;
      clearTimeout(w.timer);
      w.resolve(w.seq === seq ? { width, height, format: 'rgb', data, timestamp: w.timestamp } : undefined);
    }
  }
}

/** Decodes in one long-running ffmpeg child process per stream (a new one when the picture size changes). */
export class FfmpegDecoder implements FrameDecoder {
  readonly backend = 'ffmpeg' as const;
  readonly codec: VideoCodec;
  readonly #ffmpegPath: string;
  readonly #args: string[];
  #session: ChildSession;
  /** Every child not yet exited: the current one and retired ones still flushing. */
  #sessions = new Set<ChildSession>();
  #seq = 0;
  #failure?: Error;
  #closed?: Promise<void>;
  #writable?: Promise<void>;
  /** Bytes of unwanted frames not yet written to the current child (see MAX_HELD_FRAMES). */
  #held: Buffer[] = [];
  #heldFrames = 0;
  readonly #pool: PicturePool;

  private constructor(codec: VideoCodec, ffmpegPath: string, args: string[], first: ChildSession, pool: PicturePool) {
    this.codec = codec;
    this.#args = args;
    this.#pool = pool;
    this.#ffmpegPath = ffmpegPath;
    this.#session = first;
    this.#adopt(first);
  }

  /** Spawns the child; resolves once it runs. */
  static async start(codec: VideoCodec, ffmpegPath: string): Promise<FfmpegDecoder> {
    const args = ffmpegDecodeArgs({ checksums: !(await showinfoCanSkipChecksums(ffmpegPath)) });
    const pool = new PicturePool();
    const session = await ChildSession.spawn(ffmpegPath, args, pool);
    try {
      await session.started;
    } catch (err) {
      session.kill();
      throw DecoderFailedError.from(codec, 'ffmpeg', `could not start ${ffmpegPath}: ${(err as Error).message}`);
    }
    return new FfmpegDecoder(codec, ffmpegPath, args, session, pool);
  }

  /** The current child's process id, for diagnostics (undefined once it has exited). */
  get pid(): number | undefined {
    return this.#session.running ? this.#session.child.pid : undefined;
  }

  decode(frame: EncodedFrame, want: boolean): Promise<Picture | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#failure) return Promise.reject(this.#failure);
    if (frame.codec !== this.codec) return Promise.reject(wrongCodec(frame.codec, this.codec));
    let session = this.#session;
    if (session.headerSent && frame.isKeyframe && frame.width && frame.height && (frame.width !== session.width || frame.height !== session.height)) {
      session = this.#replace();
    }
    const seq = this.#seq++;
    if (!session.headerSent) {
      session.headerSent = true;
      session.width = frame.width;
      session.height = frame.height;
      this.#held.push(ivfHeader(this.codec, frame.width ?? 0, frame.height ?? 0));
    }
    this.#held.push(ivfFrameHeader(frame.data.length, 2 * seq + (want ? 1 : 0)), frame.data);
    if (!want && ++this.#heldFrames < MAX_HELD_FRAMES) return Promise.resolve(undefined);
    const stdin = session.child.stdin;
    const flushed = this.#flush(session);
    if (!want) {
      // Accepted once the pipe takes it; a full pipe means ffmpeg is behind, so the caller waits.
      return flushed ? Promise.resolve(undefined) : this.#pipeDrained(stdin).then(() => undefined);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => giveUp(session, seq), WANTED_TIMEOUT_MS);
      session.wanted.push({ seq, timestamp: frame.timestamp, resolve, reject, timer });
    });
  }

  release(picture: Picture): void {
    this.#pool.give(picture.data);
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#held = [];
      this.#heldFrames = 0;
      const sessions = [...this.#sessions];
      for (const s of sessions) {
        s.settle();
        s.kill();
      }
      await Promise.all(sessions.map((s) => s.exited));
    })();
    return this.#closed;
  }

  /** A new child takes over; the old one is told its input has ended, flushes what it owes and exits. */
  #replace(): ChildSession {
    const old = this.#session;
    old.retired = true;
    this.#flush(old);
    old.child.stdin.end();
    const next = ChildSession.spawnNow(this.#ffmpegPath, this.#args, this.#pool);
    next.child.once('error', (err) => this.#fail(next, `could not start ${this.#ffmpegPath}: ${err.message}`));
    this.#session = next;
    this.#adopt(next);
    return next;
  }

  /** Writes the held frames to a child in one write; false when its pipe is full. */
  #flush(session: ChildSession): boolean {
    const held = this.#held;
    if (held.length === 0) return true;
    this.#held = [];
    this.#heldFrames = 0;
    // Corked writes leave as one writev: no copy of the frames into a buffer of their own.
    const stdin = session.child.stdin;
    let room = true;
    stdin.cork();
    for (const chunk of held) room = stdin.write(chunk);
    stdin.uncork();
    return room;
  }

  #adopt(session: ChildSession): void {
    this.#sessions.add(session);
    track(session.child);
    // Not 'exit': a retiring child's last pictures may still wait to be read when it exits.
    void session.ended.then(({ code, signal }) => {
      this.#sessions.delete(session);
      if (this.#closed) return;
      if (session.retired) {
        session.settle();
        return;
      }
      this.#fail(session, `ffmpeg exited (${signal ?? `code ${code}`})${session.stderrTail ? `: ${lastLines(session.stderrTail)}` : ''}`);
    });
  }

  // One wait for the pipe to drain, shared by every caller that hit a full pipe.
  #pipeDrained(stdin: Writable): Promise<void> {
    this.#writable ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.#writable = undefined;
        stdin.off('drain', done).off('close', done);
        resolve();
      };
      stdin.on('drain', done).on('close', done);
    });
    return this.#writable;
  }

  #fail(session: ChildSession, detail: string): void {
    this.#failure ??= DecoderFailedError.from(this.codec, 'ffmpeg', detail);
    for (const s of this.#sessions) s.settle(this.#failure);
    session.settle(this.#failure);
  }
}

function giveUp(session: ChildSession, seq: number): void {
  const i = session.wanted.findIndex((w) => w.seq === seq);
  if (i < 0) return;
  const [w] = session.wanted.splice(i, 1);
  w.resolve(undefined);
}

function ivfHeader(codec: VideoCodec, width: number, height: number): Buffer {
  // Timestamps are sequence numbers, not times; with -copyts and passthrough nothing reads them as times.
  return ivfFileHeader({ codec, width, height, timebaseDen: 1000, timebaseNum: 1 });
}

function lastLines(text: string): string {
  return text.trim().split('\n').filter((l) => !l.includes('Parsed_showinfo')).slice(-3).join(' | ').slice(0, 500);
}
