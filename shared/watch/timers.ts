/**
 * The one-shot timers of a watcher, with one owner: `close()` cancels every timer still due, and
 * none starts after it (events still arrive while a session closes, and must not leave a timer).
 */
export class Timers {
  readonly #due = new Set<NodeJS.Timeout>();
  #closed = false;

  /** Runs `fn` once after `ms`; undefined once closed. */
  later(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.#closed) return undefined;
    const timer = setTimeout(() => {
      this.#due.delete(timer);
      fn();
    }, ms);
    this.#due.add(timer);
    return timer;
  }

  /** Cancels one timer (a no-op for one already run or cancelled). */
  cancel(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.#due.delete(timer);
  }

  /** Cancels every timer; later() does nothing from now on. Idempotent. */
  close(): void {
    this.#closed = true;
    for (const t of this.#due) clearTimeout(t);
    this.#due.clear();
  }
}
