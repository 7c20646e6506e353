/** Why one connection to a camera ended; the camera source retries after it. Its text is masked already. */
export class CameraFailure extends Error {
  override readonly name: string = 'CameraFailure';
  /** The camera refused the credentials (401/403): retried at the longest interval. */
  readonly refused: boolean;
  constructor(reason: string, refused = false) {
    super(reason);
    this.refused = refused;
  }
}
