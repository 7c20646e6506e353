/** One event per key per cooldown: the key is a person_id, else a face_id (with the stream id unless the scope is the room). */
export class Cooldown {
  readonly #ms: number;
  readonly #last = new Map<string, number>();

  /** ms: length of the cooldown; 0 allows every event. */
  constructor(ms: number) {
    this.#ms = ms;
  }

  /** True (and the cooldown starts) when no event for `key` was allowed within the cooldown before `now`. */
  allow(key: string, now: number): boolean {
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.#ms) return false;
    this.#last.set(key, now);
    this.#prune(now);
    return true;
  }

  // Entries past their cooldown are forgotten, so a long run with many faces does not grow the map.
  #prune(now: number): void {
    if (this.#last.size < 256) return;
    for (const [key, at] of this.#last) if (now - at >= this.#ms) this.#last.delete(key);
  }
}
