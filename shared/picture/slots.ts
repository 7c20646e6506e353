/**
 * At most `size` tasks at a time; the others wait their turn in order. Bounds the memory of work
 * whose peak is large (a decoded picture), whatever the number of messages arriving at once.
 */
export class Slots {
  readonly #size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = size;
  }

  /** Runs `task` once a slot is free; the slot is given back however the task ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so #busy only drops when nobody waits.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#busy--;
    }
  }
}
