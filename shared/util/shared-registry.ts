/** A shared value lent to one user; give it back with release(). */
export interface Lease<T> {
  readonly value: T;
  /** The last release of a key disposes its value. Calling twice is harmless. */
  release(): Promise<void>;
}

interface Entry<T> {
  value: T;
  users: number;
}

/**
 * Values shared by key across the process and reference-counted, so that many clients can use one
 * connection pool or one token cache while the last user's release still frees it.
 */
export class SharedRegistry<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #dispose: (value: T) => Promise<void>;
  readonly #usable: (value: T) => boolean;

  /**
   * @param dispose frees a value once nobody uses it.
   * @param usable tells whether a registered value can still be lent (e.g. a pool not closed meanwhile).
   */
  constructor(dispose: (value: T) => Promise<void>, usable: (value: T) => boolean = () => true) {
    this.#dispose = dispose;
    this.#usable = usable;
  }

  /** Lends the value under `key`, calling `create` when there is none (or none usable). */
  acquire(key: string, create: () => T): Lease<T> {
    let entry = this.#entries.get(key);
    if (!entry || !this.#usable(entry.value)) {
      entry = { value: create(), users: 0 };
      this.#entries.set(key, entry);
    }
    entry.users += 1;
    const current = entry;
    let released = false;
    return {
      value: current.value,
      release: async (): Promise<void> => {
        if (released) return;
        released = true;
        current.users -= 1;
        if (current.users > 0) return;
        if (this.#entries.get(key) === current) this.#entries.delete(key);
        await this.#dispose(current.value);
      },
    };
  }
}
