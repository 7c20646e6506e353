import type { ArrivedEvent, LeftEvent, MatchEvent, UnknownEvent, WatchEvent } from '../../../shared/watch';

/** The arrived events among `events`. */
export const arrivals = (events: WatchEvent[]): ArrivedEvent[] => events.filter((e): e is ArrivedEvent => e.event === 'arrived');
/** The left events among `events`. */
export const departures = (events: WatchEvent[]): LeftEvent[] => events.filter((e): e is LeftEvent => e.event === 'left');
/** The match events among `events`. */
export const matches = (events: WatchEvent[]): MatchEvent[] => events.filter((e): e is MatchEvent => e.event === 'match');
/** The unknown events among `events`. */
export const unknowns = (events: WatchEvent[]): UnknownEvent[] => events.filter((e): e is UnknownEvent => e.event === 'unknown');

/** Every left follows exactly one arrived of its visit_id, about the same someone; returns the visits never closed. */
export function expectPairs(events: WatchEvent[]): Map<string, ArrivedEvent> {
  const open = new Map<string, ArrivedEvent>();
  const closed = new Set<string>();
  for (const e of events) {
    if (e.event === 'arrived') {
      expect(open.has(e.visit_id) || closed.has(e.visit_id)).toBe(false);
      open.set(e.visit_id, e);
    } else if (e.event === 'left') {
      const arrived = open.get(e.visit_id);
      expect(arrived).toBeDefined();
      expect({ kind: e.kind, face_id: e.face_id, visitor_id: e.visitor_id }).toEqual({ kind: arrived!.kind, face_id: arrived!.face_id, visitor_id: arrived!.visitor_id });
      if (e.kind === 'stranger') expect(e.track).toBe(arrived!.track);
      expect(Date.parse(e.arrived_at)).toBeLessThanOrEqual(Date.parse(e.left_at));
      open.delete(e.visit_id);
      closed.add(e.visit_id);
    }
  }
  return open;
}
