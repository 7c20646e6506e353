import { ClientError, errorBrand, type ClientErrorDetails } from '../errors';

/** Codes of CameraFailure: the camera refused the credentials, or the connection failed otherwise. */
export type CameraFailureCode = 'camera_failed' | 'camera_refused';

/** Why one connection to a camera ended; the camera source retries after it. Its text is masked already. */
export class CameraFailure extends ClientError {
  static override readonly brand: symbol = errorBrand('CameraFailure');

  override readonly name: string = 'CameraFailure';
  declare readonly code: CameraFailureCode;
  /** The camera refused the credentials (401/403): retried at the longest interval. */
  readonly refused: boolean;

  /** Retryable unless details say otherwise: the source tries the camera again. */
  constructor(code: CameraFailureCode, message: string, details: ClientErrorDetails = {}) {
    super(code, message, { ...details, retryable: details.retryable ?? true });
    this.refused = code === 'camera_refused';
  }
}
