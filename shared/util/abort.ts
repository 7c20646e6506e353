/**
 * Settles like `work`, unless `signal` fires first: then settles with what `aborted()` returns (a
 * value, or a rejected promise). The abort listener is removed as soon as either happens, so a
 * long-lived signal does not keep every finished wait reachable. `work` itself goes on (it may be
 * shared with other callers); its late failure is swallowed so it cannot surface as an unhandled
 * rejection.
 */
export function settleOrAbort<T, A>(work: Promise<T>, signal: AbortSignal, aborted: () => A | Promise<A>): Promise<T | A> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.resolve(aborted());
  }
  return new Promise<T | A>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => undefined);
      resolve(aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Settles like `work`, unless `signal` fires first: then rejects at once with `abortError()`. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, abortError: () => Error): Promise<T> {
  if (!signal) return work;
  return settleOrAbort(work, signal, () => Promise.reject<T>(abortError()));
}
