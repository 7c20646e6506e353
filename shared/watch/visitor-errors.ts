import { codedError } from '../errors';

/** Codes of VisitorError: what the visitor book could not do. */
export const VISITOR_ERROR_CODES = ['visitors_collection_full', 'visitor_enrol_failed', 'visitor_remove_failed', 'visitor_store_failed', 'visitor_store_mismatch', 'visitor_store_untrusted'] as const;

/** A code of VisitorError. */
export type VisitorErrorCode = (typeof VISITOR_ERROR_CODES)[number];

/** A failure of the visitor book (enrolling, removing or storing visitors); the watcher goes on. */
export class VisitorError extends codedError<VisitorErrorCode>('VisitorError') {}

/** True for a code of the visitors family. */
export function isVisitorErrorCode(code: string): code is VisitorErrorCode {
  return (VISITOR_ERROR_CODES as readonly string[]).includes(code);
}
