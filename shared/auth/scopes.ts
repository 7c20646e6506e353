/** Scopes the token request asks for, as the real authorization server names them. */

/** Detection, comparison and face collections (collections share the compare scope). */
export const VISION_SCOPES: readonly string[] = Object.freeze([
  'ips.api.ricoh/v1/detect_faces',
  'ips.api.ricoh/v1/compare_faces',
  'ips.api.ricoh/v1/detect_humans',
]);

/** Rooms, tickets and signaling of the live streaming service. */
export const STREAMING_SCOPES: readonly string[] = Object.freeze(['sfu.api.ricoh/v1/sfu']);

/** Every scope of both services, for one token source shared by vision and streaming clients. */
export const ALL_SCOPES: readonly string[] = Object.freeze([...VISION_SCOPES, ...STREAMING_SCOPES]);
