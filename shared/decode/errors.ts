import { ClientError, InputError } from '../errors';
import type { VideoCodec } from '../frames/types';
import type { DecoderBackend } from './types';

/** Codes of the decoder errors: none can be made for the codec, or one failed while running. */
export type DecoderErrorCode = 'decoder_unavailable' | 'decoder_failed';

/** No decoder can be made for a codec with the asked-for backend; the message says what is missing. */
export class DecoderUnavailableError extends ClientError {
  override readonly name: string = 'DecoderUnavailableError';
  declare readonly code: 'decoder_unavailable';
  readonly codec: VideoCodec;
  /** The backend asked for ('auto' when none was forced). */
  readonly backend: 'auto' | DecoderBackend;
  /** What is missing, in words. */
  readonly reason: string;

  constructor(codec: VideoCodec, backend: 'auto' | DecoderBackend, reason: string) {
    super(`no ${backend === 'auto' ? '' : `${backend} `}decoder for ${codec}: ${reason}`, { code: 'decoder_unavailable' satisfies DecoderErrorCode, retryable: false });
    this.codec = codec;
    this.backend = backend;
    this.reason = reason;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), codec: this.codec, backend: this.backend };
  }
}

/** A decoder's child process or worker failed while running (crashed, or refused the stream); a new decoder may work. */
export class DecoderFailedError extends ClientError {
  override readonly name: string = 'DecoderFailedError';
  declare readonly code: 'decoder_failed';
  readonly codec: VideoCodec;
  readonly backend: DecoderBackend;

  constructor(codec: VideoCodec, backend: DecoderBackend, detail: string) {
    super(`${backend} decoder for ${codec} failed: ${detail}`, { code: 'decoder_failed' satisfies DecoderErrorCode, retryable: true });
    this.codec = codec;
    this.backend = backend;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), codec: this.codec, backend: this.backend };
  }
}

/** A frame of another codec than the decoder's: refused before it reaches the decoder. */
export function wrongCodec(got: unknown, want: VideoCodec): InputError {
  return new InputError('frame.codec', `frame.codec ${JSON.stringify(String(got)).slice(0, 20)} does not match the decoder's ${want}`, want);
}
