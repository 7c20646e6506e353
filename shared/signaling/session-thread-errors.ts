import { ClientError } from '../errors';
import { SignalingError, type SignalingErrorInit } from './close-reasons';
import type { WireError } from './session-thread-protocol';

/** An error as it crosses the thread: its safe fields only. */
export function wireError(err: unknown): WireError {
  if (err instanceof SignalingError) {
    // The detail is part of the message only: the text after the table's meaning, in parentheses.
    const prefix = `signaling ended: ${err.reason}: ${err.meaning} (`;
    const detail = err.message.startsWith(prefix) && err.message.endsWith(')') ? err.message.slice(prefix.length, -1) : undefined;
    return { kind: 'signaling', message: err.message, reason: err.reason, rejoin: err.rejoin, closeCode: err.closeCode, detail };
  }
  if (err instanceof ClientError) return { kind: 'client', name: err.name, message: err.message, code: err.code, retryable: err.retryable };
  return { kind: 'other', name: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) };
}

/** Rebuilds an error sent by wireError. */
export function fromWire(wire: WireError): Error {
  if (wire.kind === 'signaling') {
    const init: SignalingErrorInit = { reason: wire.reason ?? 'UNKNOWN-REASON', closeCode: wire.closeCode, rejoin: wire.rejoin as SignalingErrorInit['rejoin'] };
    return SignalingError.from(wire.detail ? { ...init, detail: wire.detail } : init);
  }
  // The name survives: the session words its TICKET-FAILED detail with it, and a TypeError means "never rejoin".
  const error = wire.kind === 'client' ? new ClientError(wire.code ?? 'unknown', wire.message, { retryable: wire.retryable ?? false }) : wire.name === 'TypeError' ? new TypeError(wire.message) : new Error(wire.message);
  if (wire.name && error.name !== wire.name) Object.defineProperty(error, 'name', { value: wire.name, enumerable: false, configurable: true, writable: true });
  return error;
}
