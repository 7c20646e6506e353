import { ClientError, errorBrand, type ClientErrorDetails, type ForeignCode } from '../errors';

/**
 * What a client should do after a signaling failure:
 * - 'new-ticket': the ticket token was refused; only a freshly issued ticket can help.
 * - 'backoff': a capacity, timeout or server-side fault; joining again later can succeed.
 * - 'never': the client sent something the server cannot accept; repeating it would loop.
 */
export type RejoinAdvice = 'new-ticket' | 'backoff' | 'never';

interface ReasonInfo {
  meaning: string;
  rejoin: RejoinAdvice;
}

const TABLE = Object.freeze({
  'CONNECT-WAIT-TIMEOUT': { meaning: 'connect message too late', rejoin: 'backoff' },
  'CONNECT-WAIT-TIMEOUT-ERROR': { meaning: 'connect message too late', rejoin: 'backoff' },
  'CONNECTION-CREATED-WAIT-TIMEOUT-ERROR': { meaning: 'signaling did not complete in time', rejoin: 'backoff' },
  'EXCEED-MAX-CONNECTIONS': { meaning: 'server full', rejoin: 'backoff' },
  'FAILURE-JSON-DECODE': { meaning: 'invalid json', rejoin: 'never' },
  'FAILURE-SDP-PARSE': { meaning: 'invalid sdp', rejoin: 'never' },
  'FAILURE-MISSING-SDP': { meaning: 'invalid sdp', rejoin: 'never' },
  'INTERNAL-ERROR': { meaning: 'internal error', rejoin: 'backoff' },
  'INVALID-AUDIO-FORMAT': { meaning: 'audio not supported', rejoin: 'never' },
  'INVALID-VIDEO-FORMAT': { meaning: 'video not supported', rejoin: 'never' },
  'MISSING-ICE-SDP': { meaning: 'invalid sdp', rejoin: 'never' },
  'MISSING-TYPE': { meaning: 'invalid json', rejoin: 'never' },
  'NO-MEDIA': { meaning: 'invalid json', rejoin: 'never' },
  'NOT-USE-CHANNEL-ID': { meaning: 'invalid json', rejoin: 'never' },
  'PONG-TIMEOUT-ERROR': { meaning: 'pong message too late', rejoin: 'backoff' },
  // Also what the service answers to a video bit_rate above its limit; bounded attempts stop that loop.
  'RAPI-EXCEED-MAX-CHANNEL-CONNECTIONS': { meaning: 'connections to the channel are full', rejoin: 'backoff' },
  'RAPI-INTERNAL-ERROR': { meaning: 'internal error', rejoin: 'backoff' },
  'RAPI-INVALID-TOKEN': { meaning: 'invalid token', rejoin: 'new-ticket' },
  'RAPI-INVALID-PARAMETER': { meaning: 'invalid json', rejoin: 'never' },
  'SIGNALING-INTERNAL-ERROR': { meaning: 'internal error', rejoin: 'backoff' },
  'TRANSPORT-INTERNAL-ERROR': { meaning: 'internal error', rejoin: 'backoff' },
  'UNKNOWN-CODEC-TYPE': { meaning: 'codec not supported', rejoin: 'never' },
  'UNKNOWN-TYPE': { meaning: 'invalid json', rejoin: 'never' },
  // Raised by this client, not sent by the server.
  'CONNECTION-LOST': { meaning: 'the signaling socket closed without a reason', rejoin: 'backoff' },
  'CONNECT-FAILED': { meaning: 'the signaling socket could not be opened', rejoin: 'backoff' },
  'SIGNALING-TIMEOUT': { meaning: 'no working connection within the signaling timeout', rejoin: 'backoff' },
  'SERVER-SILENT': { meaning: 'the server stopped sending pings', rejoin: 'backoff' },
  'ICE-FAILED': { meaning: 'the media connection failed and did not recover within the grace period', rejoin: 'backoff' },
  'PROTOCOL-ERROR': { meaning: 'the server sent an offer this client cannot answer', rejoin: 'never' },
  'TICKET-FAILED': { meaning: 'a ticket could not be obtained', rejoin: 'backoff' },
  'UNKNOWN-REASON': { meaning: 'the server closed the session with a reason this client does not know', rejoin: 'backoff' },
} as const satisfies Record<string, ReasonInfo>);

/** Close reasons of the signaling spec, plus the ones this client raises itself. */
export const CLOSE_REASONS: Readonly<Record<string, ReasonInfo>> = TABLE;

/** A close reason this client knows: the spec's and its own. */
export type CloseReason = keyof typeof TABLE;

/**
 * The code of a SignalingError: its close reason. A known one, or one a server sent that the spec
 * does not list (kept as sent, at most 80 printable characters).
 */
export type SignalingErrorCode = CloseReason | ForeignCode;

/** True for a close reason the table lists. */
export function isCloseReason(reason: string): reason is CloseReason {
  return Object.hasOwn(TABLE, reason);
}

/** What SignalingError.from builds a SignalingError from: the message is built from the table and the detail. */
export interface SignalingErrorInit {
  reason: SignalingErrorCode;
  /** WebSocket close code, when the server closed the socket. */
  closeCode?: number;
  /** Extra detail (never a token). */
  detail?: string;
  /** Overrides the table's advice (e.g. a ticket request that cannot succeed). */
  rejoin?: RejoinAdvice;
}

/** The details of a SignalingError. */
export interface SignalingErrorDetails extends ClientErrorDetails {
  /** WebSocket close code, when the server closed the socket. */
  closeCode?: number;
  /** Overrides the table's advice (e.g. a ticket request that cannot succeed). */
  rejoin?: RejoinAdvice;
}

/** What the spec's table says a reason means (the unknown reason's meaning for one not in it). */
function meaningOf(reason: SignalingErrorCode): string {
  return (isCloseReason(reason) ? TABLE[reason] : TABLE['UNKNOWN-REASON']).meaning;
}

/** A signaling session ended; `reason` is the server's close reason or one of this client's own. */
export class SignalingError extends ClientError {
  static override readonly brand: symbol = errorBrand('SignalingError');

  /** The error for a reason, with a message built from the spec's table and the detail. */
  static from(init: SignalingErrorInit): SignalingError {
    const detail = init.detail ? ` (${init.detail})` : '';
    return new SignalingError(init.reason, `signaling ended: ${init.reason}: ${meaningOf(init.reason)}${detail}`, { closeCode: init.closeCode, rejoin: init.rejoin });
  }

  override readonly name: string = 'SignalingError';
  declare readonly code: SignalingErrorCode;
  /** Close reason as sent by the server (e.g. 'RAPI-INVALID-TOKEN') or raised by the client. */
  readonly reason: SignalingErrorCode;
  /** What the spec's table says the reason means. */
  readonly meaning: string;
  /** Whether and how joining again can help. */
  readonly rejoin: RejoinAdvice;
  readonly closeCode?: number;

  /** The close reason is the code; the meaning and the rejoin advice default to the spec's table. */
  constructor(code: SignalingErrorCode, message: string, details: SignalingErrorDetails = {}) {
    const info: ReasonInfo = isCloseReason(code) ? TABLE[code] : TABLE['UNKNOWN-REASON'];
    const rejoin = details.rejoin ?? info.rejoin;
    // Joining again is worth it unless the advice says never.
    super(code, message, { ...details, retryable: details.retryable ?? rejoin !== 'never' });
    this.reason = code;
    this.meaning = info.meaning;
    this.rejoin = rejoin;
    this.closeCode = details.closeCode;
  }

  /** Safe fields only, for logs and host outputs. */
  override toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code, retryable: this.retryable, reason: this.reason, rejoin: this.rejoin, closeCode: this.closeCode };
  }
}

// Close reasons are short upper-case tokens; anything else is cut so a hostile server cannot flood logs.
function cleanReason(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 80);
}

/** Maps a WebSocket close the client did not ask for to a SignalingError. */
export function errorFromClose(code: number, reasonText: string): SignalingError {
  const reason = cleanReason(reasonText.trim());
  if (!reason) return SignalingError.from({ reason: 'CONNECTION-LOST', closeCode: code, detail: `close code ${code}` });
  if (isCloseReason(reason)) return SignalingError.from({ reason, closeCode: code });
  return SignalingError.from({ reason, closeCode: code, detail: 'reason not in the spec' });
}
