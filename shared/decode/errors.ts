import { ClientError, errorBrand, InputError, type ClientErrorDetails } from '../errors';
import type { VideoCodec } from '../frames/types';
import type { DecoderBackend } from './types';

/** Codes of the decoder errors: none can be made for the codec, or one failed while running. */
export type DecoderErrorCode = 'decoder_unavailable' | 'decoder_failed';

/** No decoder can be made for a codec with the asked-for backend; the message says what is missing. */
export class DecoderUnavailableError extends ClientError {
  static override readonly brand: symbol = errorBrand('DecoderUnavailableError');

  /** The error for a codec and backend, with a message that says what is missing. */
  static from(codec: VideoCodec, backend: 'auto' | DecoderBackend, reason: string): DecoderUnavailableError {
    return new DecoderUnavailableError('decoder_unavailable', `no ${backend === 'auto' ? '' : `${backend} `}decoder for ${codec}: ${reason}`, { codec, backend, reason });
  }

  override readonly name: string = 'DecoderUnavailableError';
  declare readonly code: 'decoder_unavailable';
  readonly codec: VideoCodec;
  /** The backend asked for ('auto' when none was forced). */
  readonly backend: 'auto' | DecoderBackend;
  /** What is missing, in words. */
  readonly reason: string;

  constructor(code: 'decoder_unavailable', message: string, details: ClientErrorDetails & { codec: VideoCodec; backend: 'auto' | DecoderBackend; reason: string }) {
    super(code satisfies DecoderErrorCode, message, details);
    this.codec = details.codec;
    this.backend = details.backend;
    this.reason = details.reason;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), codec: this.codec, backend: this.backend };
  }
}

/** A decoder's child process or worker failed while running (crashed, or refused the stream); a new decoder may work. */
export class DecoderFailedError extends ClientError {
  static override readonly brand: symbol = errorBrand('DecoderFailedError');

  /** The error for a decoder that failed, with a message that names it and says how. */
  static from(codec: VideoCodec, backend: DecoderBackend, detail: string): DecoderFailedError {
    return new DecoderFailedError('decoder_failed', `${backend} decoder for ${codec} failed: ${detail}`, { codec, backend });
  }

  override readonly name: string = 'DecoderFailedError';
  declare readonly code: 'decoder_failed';
  readonly codec: VideoCodec;
  readonly backend: DecoderBackend;

  /** Retryable unless details say otherwise: a new decoder may work. */
  constructor(code: 'decoder_failed', message: string, details: ClientErrorDetails & { codec: VideoCodec; backend: DecoderBackend }) {
    super(code satisfies DecoderErrorCode, message, { ...details, retryable: details.retryable ?? true });
    this.codec = details.codec;
    this.backend = details.backend;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), codec: this.codec, backend: this.backend };
  }
}

/** A frame of another codec than the decoder's: refused before it reaches the decoder. */
export function wrongCodec(got: unknown, want: VideoCodec): InputError {
  return new InputError('invalid_input', `frame.codec ${JSON.stringify(String(got)).slice(0, 20)} does not match the decoder's ${want}`, { field: 'frame.codec', limit: want });
}
