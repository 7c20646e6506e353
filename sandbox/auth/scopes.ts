import type { TokenScope } from '../module';

/** Scopes of the vision service, as the real token endpoint names them. */
export const VISION_SCOPES = [
  'ips.api.ricoh/v1/detect_faces',
  'ips.api.ricoh/v1/compare_faces',
  'ips.api.ricoh/v1/detect_humans',
] as const;

/** Scope of the streaming service. */
export const STREAMING_SCOPE = 'sfu.api.ricoh/v1/sfu';

/** Every scope the sandbox grants; an empty scope request gets all of them. */
export const ALL_SCOPES: readonly string[] = [...VISION_SCOPES, STREAMING_SCOPE];

/** Whether a set of granted scopes lets its token into the given service. */
export function scopeAllows(granted: ReadonlySet<string>, service: TokenScope): boolean {
  if (service === 'streaming') return granted.has(STREAMING_SCOPE);
  return VISION_SCOPES.some((scope) => granted.has(scope));
}
