/** A least-recently-used map with a fixed number of entries (0 disables caching). */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Returns the value and marks it as most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores a value, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value as K;
      this.#entries.delete(oldest);
    }
  }

  /** Number of entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }
}
