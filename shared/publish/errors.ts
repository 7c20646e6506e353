import { ClientError, codedError } from '../errors';

/** Codes of PublishError: what part of publishing failed. */
export type PublishErrorCode = 'source_failed' | 'source_in_use' | 'no_frames' | 'encoder_missing' | 'publish_failed' | 'camera_refused' | 'stopped';

/** Publishing failed: the video source (file, ffmpeg) or the pump feeding the room. */
export class PublishError extends codedError<PublishErrorCode>('PublishError') {}

/** Wraps anything the publishing pump threw into a ClientError (ClientErrors pass through). */
export function publishFailure(err: unknown): ClientError {
  if (err instanceof ClientError) return err;
  const text = err instanceof Error ? err.message : String(err);
  return new PublishError('publish_failed', `publishing failed: ${text.slice(0, 500)}`);
}
