import { codedError } from '../errors';

/** Codes of PeopleError. */
export const PEOPLE_ERROR_CODES = ['people_store_failed', 'people_store_invalid', 'people_store_mismatch', 'people_store_untrusted', 'people_collection_full', 'people_conflict'] as const;

/** A code of PeopleError. */
export type PeopleErrorCode = (typeof PEOPLE_ERROR_CODES)[number];

/** A failure of the people directory or its store (bad input is an InputError instead). */
export class PeopleError extends codedError<PeopleErrorCode>('PeopleError') {}
