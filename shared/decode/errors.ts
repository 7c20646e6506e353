import type { VideoCodec } from '../frames/types';
import type { DecoderBackend } from './types';

// The package's common error base. Switch this one line to `ClientError` from '../errors' once it
// exists; the class below already carries its fields (code, retryable, toJSON).
const ErrorBase = Error;

/** No decoder can be made for a codec with the asked-for backend; the message says what is missing. */
export class DecoderUnavailableError extends ErrorBase {
  override readonly name = 'DecoderUnavailableError';
  readonly code = 'decoder_unavailable';
  readonly retryable = false;
  readonly codec: VideoCodec;
  /** The backend asked for ('auto' when none was forced). */
  readonly backend: 'auto' | DecoderBackend;
  /** What is missing, in words. */
  readonly reason: string;

  constructor(codec: VideoCodec, backend: 'auto' | DecoderBackend, reason: string) {
    super(`no ${backend === 'auto' ? '' : `${backend} `}decoder for ${codec}: ${reason}`);
    this.codec = codec;
    this.backend = backend;
    this.reason = reason;
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, codec: this.codec, backend: this.backend };
  }
}

/** A decoder's child process or worker failed while running (crashed, or refused the stream). */
export class DecoderFailedError extends ErrorBase {
  override readonly name = 'DecoderFailedError';
  readonly code = 'decoder_failed';
  readonly retryable = true;
  readonly codec: VideoCodec;
  readonly backend: DecoderBackend;

  constructor(codec: VideoCodec, backend: DecoderBackend, detail: string) {
    super(`${backend} decoder for ${codec} failed: ${detail}`);
    this.codec = codec;
    this.backend = backend;
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, codec: this.codec, backend: this.backend };
  }
}
