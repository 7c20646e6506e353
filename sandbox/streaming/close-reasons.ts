/** Every close reason the spec lists, spelled exactly as in its table. */
export type CloseReason =
  | 'CONNECT-WAIT-TIMEOUT'
  | 'CONNECT-WAIT-TIMEOUT-ERROR'
  | 'CONNECTION-CREATED-WAIT-TIMEOUT-ERROR'
  | 'EXCEED-MAX-CONNECTIONS'
  | 'FAILURE-JSON-DECODE'
  | 'FAILURE-SDP-PARSE'
  | 'FAILURE-MISSING-SDP'
  | 'INTERNAL-ERROR'
  | 'INVALID-AUDIO-FORMAT'
  | 'INVALID-VIDEO-FORMAT'
  | 'MISSING-ICE-SDP'
  | 'MISSING-TYPE'
  | 'NO-MEDIA'
  | 'NOT-USE-CHANNEL-ID'
  | 'PONG-TIMEOUT-ERROR'
  | 'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS'
  | 'RAPI-INTERNAL-ERROR'
  | 'RAPI-INVALID-TOKEN'
  | 'RAPI-INVALID-PARAMETER'
  | 'SIGNALING-INTERNAL-ERROR'
  | 'TRANSPORT-INTERNAL-ERROR'
  | 'UNKNOWN-CODEC-TYPE'
  | 'UNKNOWN-TYPE';

/**
 * WebSocket close codes the sandbox pairs with each reason. The spec names reasons only;
 * codes are grouped like HTTP statuses (4400 bad message, 4401 token, 4408 timeout,
 * 4429 limit, 4500 internal) so a client can tell the class without parsing the reason.
 */
export const closeCodes: Readonly<Record<CloseReason, number>> = Object.freeze({
  'FAILURE-JSON-DECODE': 4400,
  'MISSING-TYPE': 4400,
  'UNKNOWN-TYPE': 4400,
  'UNKNOWN-CODEC-TYPE': 4400,
  'INVALID-AUDIO-FORMAT': 4400,
  'INVALID-VIDEO-FORMAT': 4400,
  'NOT-USE-CHANNEL-ID': 4400,
  'FAILURE-SDP-PARSE': 4400,
  'FAILURE-MISSING-SDP': 4400,
  'MISSING-ICE-SDP': 4400,
  'NO-MEDIA': 4400,
  'RAPI-INVALID-PARAMETER': 4400,
  'RAPI-INVALID-TOKEN': 4401,
  'CONNECT-WAIT-TIMEOUT': 4408,
  'CONNECT-WAIT-TIMEOUT-ERROR': 4408,
  'CONNECTION-CREATED-WAIT-TIMEOUT-ERROR': 4408,
  'PONG-TIMEOUT-ERROR': 4408,
  'EXCEED-MAX-CONNECTIONS': 4429,
  'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS': 4429,
  'INTERNAL-ERROR': 4500,
  'RAPI-INTERNAL-ERROR': 4500,
  'SIGNALING-INTERNAL-ERROR': 4500,
  'TRANSPORT-INTERNAL-ERROR': 4500,
});

/** Close code for a normal end (client disconnect, room deleted). */
export const NORMAL_CLOSE = 1000;
/** Close code used by the `restart-sfu` fault: the service restarts, reconnecting may help. */
export const RESTART_CLOSE = 1012;
