/** Runs tasks one at a time in arrival order, so model inference never overlaps and memory stays bounded. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Queues a task; its result or error goes to the caller only. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
