import { ClientError, errorBrand, type ClientErrorDetails } from '../errors';

/** Codes of PeopleError. */
export const PEOPLE_ERROR_CODES = ['people_store_failed', 'people_store_invalid', 'people_store_mismatch', 'people_store_untrusted', 'people_collection_full', 'people_conflict'] as const;

/** A code of PeopleError. */
export type PeopleErrorCode = (typeof PEOPLE_ERROR_CODES)[number];

/** A failure of the people directory or its store (bad input is an InputError instead). */
export class PeopleError extends ClientError {
  static override readonly brand: symbol = errorBrand('PeopleError');

  override readonly name: string = 'PeopleError';
  declare readonly code: PeopleErrorCode;

  /** details.status: the API's, when an API call failed. */
  constructor(code: PeopleErrorCode, message: string, details: ClientErrorDetails = {}) {
    super(code, message, details);
  }
}
