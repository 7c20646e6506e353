import { ClientError } from '../errors';
import { nameKey, readPeople } from '../people/document';
import { PeopleError } from '../people/errors';
import { PeopleIndex, type IndexedPerson } from '../people/people-index';
import type { PeopleStore } from '../people/types';
import type { Timers } from './timers';

/** How often the watcher re-reads the people store (a store that signals `changed` is re-read at once too). */
export const PEOPLE_RELOAD_MS = 2000;

/**
 * The watcher's view of the people store: a PeopleIndex swapped for a new one when the store
 * changes. A store that cannot be read or is refused is reported (once, until it reads again) and
 * the people last read stay in use.
 */
export class PeopleView {
  readonly #store: PeopleStore;
  readonly #collectionId: string;
  readonly #failed: (error: ClientError) => void;
  readonly #changed: (index: PeopleIndex) => void;
  #index = PeopleIndex.EMPTY;
  #lastError?: string;
  #reading?: Promise<void>;
  #again = false;
  #closed = false;
  readonly #onChanged = (): void => void this.reload();

  /** changed: called after the index was swapped; failed: a store failure, for the watcher's error event. */
  constructor(store: PeopleStore, collectionId: string, failed: (error: ClientError) => void, changed: (index: PeopleIndex) => void) {
    this.#store = store;
    this.#collectionId = collectionId;
    this.#failed = failed;
    this.#changed = changed;
  }

  /** The people now. */
  get index(): PeopleIndex {
    return this.#index;
  }

  /** Reads the store once, then re-reads it every PEOPLE_RELOAD_MS and on its `changed` signal until close(). */
  async open(timers: Timers): Promise<void> {
    await this.reload();
    this.#store.on?.('changed', this.#onChanged);
    const tick = (): void => {
      void this.reload().finally(() => timers.later(PEOPLE_RELOAD_MS, tick));
    };
    timers.later(PEOPLE_RELOAD_MS, tick);
  }

  /** Re-reads the store (a read under way is followed by one more, so no change is missed). */
  reload(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        void this.reload();
      }
    });
    return this.#reading;
  }

  /** Stops listening to the store. */
  close(): void {
    this.#closed = true;
    this.#store.off?.('changed', this.#onChanged);
  }

  async #read(): Promise<void> {
    let index: PeopleIndex;
    try {
      const raw = await this.#store.load();
      index = PeopleIndex.of(readPeople(raw, this.#collectionId, this.#store));
    } catch (err) {
      const error = err instanceof ClientError ? err : new PeopleError('people_store_failed', `the people store could not be read (${codeOf(err)})`);
      if (error.message !== this.#lastError && !this.#closed) this.#failed(error);
      this.#lastError = error.message;
      return;
    }
    this.#lastError = undefined;
    if (this.#closed) return;
    this.#index = index;
    this.#changed(index);
  }
}

function codeOf(err: unknown): string {
  const e = err as { code?: unknown };
  return (typeof e?.code === 'string' ? e.code : err instanceof Error ? err.name : 'error').slice(0, 120);
}

/** True when `ignore` mutes a face: by face id or its label, and for a person's face by person_id or name (case-insensitively). */
export function isMuted(o: { ignore?: ReadonlySet<string>; labels: ReadonlyMap<string, string> }, faceId: string, person?: IndexedPerson): boolean {
  const ignore = o.ignore;
  if (!ignore || ignore.size === 0) return false;
  if (ignore.has(faceId) || ignore.has(o.labels.get(faceId) ?? '')) return true;
  if (!person) return false;
  if (ignore.has(person.person_id)) return true;
  const name = nameKey(person.name);
  return [...ignore].some((n) => nameKey(n.trim()) === name);
}
