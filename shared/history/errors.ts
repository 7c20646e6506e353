import { codedError } from '../errors';

/**
 * Codes of a HistoryError: the database is locked by another writer past the wait (`history_locked`,
 * retryable), the disk is full (`history_full`, retryable once space is freed), the engine failed
 * otherwise (`history_failed`), or the store is closed (`history_closed`).
 */
export type HistoryErrorCode = 'history_locked' | 'history_full' | 'history_failed' | 'history_closed';

/** The history's database or media folder failed; bad input is an InputError instead. */
export class HistoryError extends codedError<HistoryErrorCode>('HistoryError') {}
