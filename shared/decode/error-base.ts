/**
 * The package's error base as the decoders use it. Until `ClientError` lands in shared/errors.ts
 * this file holds a stand-in with the same constructor and fields; after that merge its whole body
 * becomes: export { ClientError as ErrorBase } from '../errors';
 */
export class ErrorBase extends Error {
  override readonly name: string = 'ClientError';
  readonly code: string;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(message: string, init: { code: string; retryable?: boolean; status?: number }) {
    super(message);
    this.code = init.code;
    this.retryable = init.retryable ?? false;
    if (init.status !== undefined) this.status = init.status;
  }

  /** Safe fields only, for logs and host outputs. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, status: this.status };
  }
}
