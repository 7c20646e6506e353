import type { LeftEvent, LeftReason, PresentEntry } from './events';
import type { Identity, Visit } from './presence';

/** The event that ends a visit. */
export function leftEvent(visit: Visit, reason: LeftReason, room: string): LeftEvent {
  return {
    event: 'left',
    visit_id: visit.visitId,
    kind: visit.kind,
    reason,
    ...identityFields(visit.who, visit.label),
    label: visit.label,
    room,
    stream_id: visit.streamId,
    arrived_at: new Date(visit.arrivedAt).toISOString(),
    left_at: new Date(visit.lastSeen).toISOString(),
    duration_s: Math.round((visit.lastSeen - visit.arrivedAt) / 100) / 10,
    time: new Date().toISOString(),
  };
}

/** A visit under way, as `present()` and status events list it. */
export function presentEntry(visit: Visit): PresentEntry {
  return {
    visit_id: visit.visitId,
    kind: visit.kind,
    ...identityFields(visit.who, visit.label),
    label: visit.label,
    stream_id: visit.streamId,
    since: new Date(visit.arrivedAt).toISOString(),
    last_seen: new Date(visit.lastSeen).toISOString(),
  };
}

/** The id fields of an event about someone: person_id and name (with the face_id that matched), face_id, visitor_id, or a stranger's track. */
export function identityFields(who: Identity, label: string | null): { person_id?: string; name?: string; face_id?: string; visitor_id?: string; track?: number } {
  if ('personId' in who) return { person_id: who.personId, ...(label !== null ? { name: label } : {}), face_id: who.faceId };
  if ('faceId' in who) return { face_id: who.faceId };
  if ('visitorId' in who) return { visitor_id: who.visitorId };
  return { track: who.track };
}
