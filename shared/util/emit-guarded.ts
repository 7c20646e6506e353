import type { EventEmitter } from 'node:events';

/** A host's event listener threw; the emitter carried on. */
export interface ListenerErrorInfo {
  /** The event whose listener threw. */
  event: string;
  error: unknown;
}

/**
 * Calls each listener of `event` on its own: one that throws neither stops the others nor reaches
 * the emitter's caller. Its error goes to the emitter's `listenerError` listeners, or, when there
 * are none (or they throw too), to process.emitWarning (type ListenerError, once per emitter and
 * event), so a host bug is never lost silently and never floods the log.
 */
export function emitGuarded<E extends EventEmitter>(emitter: E, event: string, args: unknown[]): void {
  for (const listener of emitter.rawListeners(event) as ((...a: unknown[]) => unknown)[]) {
    try {
      listener.apply(emitter, args);
    } catch (error) {
      reportListenerError(emitter, event, error);
    }
  }
}

function reportListenerError(emitter: EventEmitter, event: string, error: unknown): void {
  if (event !== 'listenerError' && emitter.listenerCount('listenerError') > 0) {
    let failed = false;
    for (const listener of emitter.rawListeners('listenerError') as ((...a: unknown[]) => unknown)[]) {
      try {
        listener.call(emitter, { event, error } satisfies ListenerErrorInfo);
      } catch {
        failed = true;
      }
    }
    if (!failed) return;
  }
  let warned = warnedEvents.get(emitter);
  if (!warned) warnedEvents.set(emitter, (warned = new Set()));
  if (warned.has(event)) return;
  warned.add(event);
  const owner = emitter.constructor?.name ?? 'an emitter';
  const warning = new Error(
    `a '${event}' listener of ${owner} threw: ${describe(error)} (further throws of '${event}' listeners are not warned about; listen to 'listenerError' to see each)`,
    { cause: error },
  );
  warning.name = 'ListenerError';
  process.emitWarning(warning);
}

const warnedEvents = new WeakMap<EventEmitter, Set<string>>();

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 200);
  return err === undefined || err === null ? `rejected with ${String(err)}` : 'unknown error';
}
