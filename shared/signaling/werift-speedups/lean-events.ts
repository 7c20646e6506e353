import { applyOnce, weriftCommonModule } from './apply-once';

/** What this module uses of werift's Event. */
interface WeriftEvent {
  ended: boolean;
  event: { stack: { execute: (...args: unknown[]) => unknown }[]; promiseStack: { execute: (...args: unknown[]) => unknown }[] };
  onerror: (e: unknown) => void;
  execute: (...args: unknown[]) => void;
}
type EventClass = new (...args: unknown[]) => WeriftEvent;

/**
 * werift passes every packet through five or so of its Events, and each execute() starts an async
 * function for its queued (promise) subscribers whether there are any or not: a promise, a closure
 * and a microtask per event per packet, about a sixth of what the receive path allocates. Events
 * made from now on skip that when no queued subscriber is there, which nothing can observe: the
 * async function reads the queue before its first await. Returns false when werift's Event is not
 * what this expects.
 */
export function useLeanEvents(): boolean {
  return applyOnce('leanEvents', (patch) => {
    const events = weriftCommonModule('event');
    const Original = events?.Event as EventClass | undefined;
    if (typeof Original !== 'function') return false;
    const probe = new Original();
    if (typeof probe.execute !== 'function' || !Array.isArray(probe.event?.stack) || !Array.isArray(probe.event?.promiseStack) || typeof probe.onerror !== 'function') return false;
    const Lean = class Event extends Original {
      constructor(...args: unknown[]) {
        super(...args);
        this.execute = leanExecute(this, this.execute);
      }
    };
    patch.value(events!, 'Event', Lean);
    return events!.Event === Lean;
  });
}

/** An Event's execute that hands over to werift's own only when it has queued subscribers to run. */
export function leanExecute(event: WeriftEvent, original: (...args: unknown[]) => void): (...args: unknown[]) => void {
  return (...args: unknown[]): void => {
    if (event.ended) return;
    if (event.event.promiseStack.length > 0) return original(...args);
    for (const item of event.event.stack) item.execute(...args);
    // A subscriber just above may have queued one: werift's own would run it now.
    if (event.event.promiseStack.length > 0) runQueued(event, args);
  };
}

function runQueued(event: WeriftEvent, args: unknown[]): void {
  (async () => {
    for (const item of event.event.promiseStack) await item.execute(...args);
  })().catch((e: unknown) => event.onerror(e));
}
