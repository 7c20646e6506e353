import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const INITIAL_BYTES = 2 * 1024 * 1024;
/** Less room than this left for a read: the buffer grows. */
const MIN_READ_BYTES = 256 * 1024;
const CONNECT_TIMEOUT_MS = 5000;

/**
 * The bytes a decoder child writes, gathered in one buffer that is reused: pictures are cut from its
 * front. Read from a pipe, every 64 KB arrives in a buffer of its own (about 5 MB a second for one
 * 640x480 stream sampled at 2 fps), and V8 counts that memory towards its next full collection; read
 * from a local socket (`connectLocalOutput`), the kernel writes straight into this buffer.
 */
export class PictureInput {
  #buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  #filled = 0;
  /** Called after each read. */
  onData: () => void = () => undefined;

  /** Bytes waiting to be taken. */
  get length(): number {
    return this.#filled;
  }

  /** Where the next read goes: the free end of the buffer, at least MIN_READ_BYTES of it. */
  room(): Buffer {
    this.#reserve(MIN_READ_BYTES);
    return this.#buffer.subarray(this.#filled);
  }

  /** `n` bytes were read into room(). */
  received(n: number): void {
    this.#filled += n;
    this.onData();
  }

  /** A chunk read from a pipe, copied in. */
  append(chunk: Buffer): void {
    this.#reserve(chunk.length);
    chunk.copy(this.#buffer, this.#filled);
    this.received(chunk.length);
  }

  /** Fills `into` with the first bytes waiting and drops them. */
  takeInto(into: Uint8Array): void {
    const size = into.byteLength;
    if (size > this.#filled) throw new RangeError(`${size} bytes asked for, ${this.#filled} waiting`);
    into.set(this.#buffer.subarray(0, size));
    this.#buffer.copyWithin(0, size, this.#filled);
    this.#filled -= size;
  }

  #reserve(bytes: number): void {
    if (this.#buffer.length - this.#filled >= bytes) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#filled + bytes));
    this.#buffer.copy(grown, 0, 0, this.#filled);
    this.#buffer = grown;
  }
}

/**
 * A connected pair of local sockets for a child's stdout: `theirs` is handed to the child, `ours`
 * reads into `input` without a new buffer per read. The socket lives in a fresh folder only this
 * user can enter, and is gone from it once connected. Undefined where this cannot be done (Windows,
 * no writable temporary folder): the caller then reads a plain pipe.
 */
export async function connectLocalOutput(input: PictureInput): Promise<{ theirs: net.Socket; ours: net.Socket } | undefined> {
  if (process.platform === 'win32') return undefined;
  let dir: string | undefined;
  const server = net.createServer();
  let ours: net.Socket | undefined;
  let accepted: Promise<net.Socket> | undefined;
  try {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vs-decode-'));
    const socketPath = path.join(dir, 'out.sock');
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    });
    accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const connection = net.connect({
      path: socketPath,
      onread: {
        buffer: () => input.room(),
        callback: (n: number) => {
          input.received(n);
          return true;
        },
      },
    });
    ours = connection;
    const connected = new Promise<void>((resolve, reject) => {
      connection.once('connect', resolve);
      connection.once('error', reject);
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('local socket did not connect')), CONNECT_TIMEOUT_MS);
    });
    const [theirs] = await Promise.race([Promise.all([accepted, connected]), timeout]).finally(() => clearTimeout(timer));
    return { theirs, ours: connection };
  } catch {
    ours?.destroy();
    // The accepted end of a connection that came in before giving up.
    void accepted?.then((theirs) => theirs.destroy());
    return undefined;
  } finally {
    // Closing the server removes the socket's name; the connection stays.
    server.close();
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
