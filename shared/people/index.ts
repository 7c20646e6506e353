/** People: named persons over several faces of a collection, their store, and the verdict that names them. */
export { PeopleDirectory, COLLECTION_CAPACITY, type PeopleDirectoryOptions } from './directory';
export { MemoryPeopleStore } from './memory-store';
export { PeopleIndex, type IndexedPerson } from './people-index';
export { personVerdict, DEFAULT_CLOSEST_BAR, type PersonVerdict, type FaceScore, type Closest, type VerdictOptions } from './verdict';
export { readPeople, sealPeople, emptyPeople, checkName, MAX_NAME } from './document';
export { PeopleError, PEOPLE_ERROR_CODES, type PeopleErrorCode } from './errors';
export { preparePhoto, type PreparedPhoto } from './photo';
export type * from './types';
