import { EventEmitter } from 'node:events';
import type { PeopleDocument, PeopleStore } from './types';
import { emptyPeople } from './document';

/** Keeps the people in memory (forgotten with the process); updates run one at a time and signal `changed`. */
export class MemoryPeopleStore extends EventEmitter<{ changed: [] }> implements PeopleStore {
  readonly name?: string;
  readonly key?: Uint8Array;
  #document?: PeopleDocument;
  #queue: Promise<unknown> = Promise.resolve();

  /** name: how errors name the store; key: seals what is saved. */
  constructor(options: { name?: string; key?: Uint8Array } = {}) {
    super();
    if (options.name !== undefined) this.name = options.name;
    if (options.key !== undefined) this.key = options.key;
  }

  /** The saved document (a copy), undefined before the first update. */
  load(): PeopleDocument | undefined {
    return this.#document && structuredClone(this.#document);
  }

  /** Applies `change` to the latest document, after any update under way. */
  update(change: (doc: PeopleDocument) => PeopleDocument): Promise<PeopleDocument> {
    const run = this.#queue.then(() => {
      const next = change(structuredClone(this.#document ?? emptyPeople('')));
      this.#document = structuredClone(next);
      this.emit('changed');
      return structuredClone(next);
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
