import { codedError } from '../errors';

/** One RTSP message (request or response): its start line, headers, and its bytes as they came. */
export interface RtspMessage {
  startLine: string;
  /** Headers in order, names as sent. */
  headers: [string, string][];
  /** The head (start line and headers, without the blank line), as latin1 text. */
  head: string;
  /** The blank line that ended the head, as sent (CRLF CRLF, or LF LF from sloppy servers). */
  separator: string;
  body: Buffer;
}

/** The longest head and body a relay takes; RTSP heads and SDP bodies are a few kilobytes. */
const MAX_HEAD = 64 * 1024;
const MAX_BODY = 1024 * 1024;

/** Thrown when a peer sends what is not RTSP within the limits; the connection is ended. */
export class RtspProtocolError extends codedError<'rtsp_protocol'>('RtspProtocolError') {}

/**
 * Splits one direction of an RTSP connection into messages and interleaved binary data (RFC 2326
 * section 10.12: `$`, channel, 16-bit length, payload). Binary data is handed on as it arrives,
 * in pieces, never copied into a buffer.
 */
export class RtspReader {
  readonly #onMessage: (message: RtspMessage) => void;
  readonly #onBinary: (bytes: Buffer) => void;
  #buffer: Buffer = Buffer.alloc(0);
  /** Bytes of an interleaved frame still to pass on. */
  #binaryLeft = 0;

  constructor(onMessage: (message: RtspMessage) => void, onBinary: (bytes: Buffer) => void) {
    this.#onMessage = onMessage;
    this.#onBinary = onBinary;
  }

  /** Takes the next bytes of the stream; throws an RtspProtocolError for a message over the limits. */
  push(chunk: Buffer): void {
    let data = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    this.#buffer = Buffer.alloc(0);
    while (data.length > 0) {
      if (this.#binaryLeft > 0) {
        const n = Math.min(this.#binaryLeft, data.length);
        this.#onBinary(data.subarray(0, n));
        this.#binaryLeft -= n;
        data = data.subarray(n);
        continue;
      }
      if (data[0] === 0x24) {
        if (data.length < 4) break;
        this.#binaryLeft = 4 + data.readUInt16BE(2);
        continue;
      }
      // Stray line breaks between messages are allowed (RFC 2326 section 4).
      if (data[0] === 0x0d || data[0] === 0x0a) {
        data = data.subarray(1);
        continue;
      }
      const message = this.#message(data);
      if (!message) break;
      data = data.subarray(message.length);
      this.#onMessage(message.message);
    }
    this.#buffer = Buffer.from(data);
  }

  #message(data: Buffer): { message: RtspMessage; length: number } | undefined {
    const text = data.subarray(0, MAX_HEAD + 4).toString('latin1');
    const end = /\r?\n\r?\n/.exec(text);
    if (!end) {
      if (data.length > MAX_HEAD) throw new RtspProtocolError('rtsp_protocol', `an RTSP message head over ${MAX_HEAD} bytes`);
      return undefined;
    }
    const head = text.slice(0, end.index);
    const lines = head.split(/\r?\n/);
    const headers: [string, string][] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    }
    const length = Number(headerValue(headers, 'content-length') ?? 0);
    if (!Number.isInteger(length) || length < 0 || length > MAX_BODY) throw new RtspProtocolError('rtsp_protocol', `an RTSP message body of ${headerValue(headers, 'content-length')} bytes (at most ${MAX_BODY})`);
    const bodyStart = end.index + end[0].length;
    if (data.length < bodyStart + length) return undefined;
    const body = Buffer.from(data.subarray(bodyStart, bodyStart + length));
    return { message: { startLine: lines[0], headers, head, separator: end[0], body }, length: bodyStart + length };
  }
}

/** The first value of a header (name case-insensitive). */
export function headerValue(headers: readonly [string, string][], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

/** Every value of a header (name case-insensitive). */
export function headerValues(headers: readonly [string, string][], name: string): string[] {
  const lower = name.toLowerCase();
  return headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}
