/**
 * Runs one job at a time on the newest value offered: a value offered while a job runs waits in a
 * single slot, and a newer one replaces it (the older is dropped and counted). Memory stays bounded
 * however slow the job is.
 */
export class LatestWins<T> {
  readonly #run: (value: T) => Promise<void>;
  readonly #onDrop: (value: T) => void;
  #pending?: { value: T };
  #running?: Promise<void>;
  #closed = false;
  /** Values replaced in the slot before a job could take them. */
  dropped = 0;

  /** run: the job (its rejection is the caller's to catch inside); onDrop: told of each dropped value. */
  constructor(run: (value: T) => Promise<void>, onDrop: (value: T) => void = () => undefined) {
    this.#run = run;
    this.#onDrop = onDrop;
  }

  /** True while a job runs. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Offers a value: runs it now when idle, else keeps it as the next one (replacing an older one). */
  offer(value: T): void {
    if (this.#closed) return;
    if (this.#pending) {
      this.dropped++;
      this.#onDrop(this.#pending.value);
    }
    this.#pending = { value };
    this.#running ??= this.#drain();
  }

  /** Drops the waiting value, refuses new ones, and resolves when the running job is over. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pending) this.#onDrop(this.#pending.value);
    this.#pending = undefined;
    await this.#running;
  }

  /** Resolves when no job runs and none waits. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending && !this.#closed) {
        const { value } = this.#pending;
        this.#pending = undefined;
        try {
          await this.#run(value);
        } catch {
          // The job reports its own failures; one failure must not stop the next samples.
        }
      }
    } finally {
      this.#running = undefined;
    }
  }
}
