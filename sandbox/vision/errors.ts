import type { ServerResponse } from 'node:http';
import { sendError, sendMessage } from '../http/respond';

/** A refusal of a vision request, carrying the status and the body shape the service uses for it. */
export class VisionError extends Error {
  override name = 'VisionError';

  /** `code` set: `{error:{code,message}}` body; unset: the gateway's `{message}` body. */
  constructor(readonly status: number, message: string, readonly code?: string) {
    super(message);
  }

  /** Writes this refusal as the response. */
  send(res: ServerResponse): void {
    if (this.code) sendError(res, this.status, this.code, this.message);
    else sendMessage(res, this.status, this.message);
  }
}

/** 413 for an image (or images together) at or above the 4 MB limit. */
export const tooLong = (): VisionError => new VisionError(413, 'Request Too Long');
/** 415 for a Content-Type the endpoint does not take. */
export const unsupportedMedia = (): VisionError => new VisionError(415, 'Unsupported Media Type');
/** 400 for a missing or malformed request field. */
export const invalidParameter = (message: string): VisionError => new VisionError(400, message, 'invalid_parameter');
/** 404 for an unknown collection or face id, as the real service words it. */
export const notFound = (): VisionError =>
  new VisionError(404, 'The specified resource does not exist.', 'resource_not_found');
