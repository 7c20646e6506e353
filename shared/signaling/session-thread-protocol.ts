import type { EncodedFrame } from '../frames/types';
import type { Ticket } from '../streaming/types';
import type { ConnectedInfo, SessionEvents, SessionOptions } from './session';
import type { WeriftSpeedupsStatus } from './werift-speedups';

/** An error's safe fields, as they cross between threads. */
export interface WireError {
  kind: 'signaling' | 'client' | 'other';
  /** The class name, e.g. 'ApiError' or 'TypeError'. */
  name?: string;
  message: string;
  reason?: string;
  rejoin?: string;
  closeCode?: number;
  /** A SignalingError's detail. */
  detail?: string;
  code?: string;
  retryable?: boolean;
}

/** workerData of a receive worker: every session it serves runs with the speed-ups on, or every one with them off. */
export interface ReceiveWorkerInit {
  speedupsOff: boolean;
}

/** Messages from the host thread to a receive worker; `sid` names one of the worker's sessions. */
export type ToWorker =
  | { type: 'start'; sid: number; options: Omit<SessionOptions, 'getTicket'> }
  | { type: 'close'; sid: number }
  | { type: 'keyframe'; sid: number; streamId?: string }
  | { type: 'ticket'; sid: number; id: number; ticket?: Ticket; error?: WireError };

/** Messages from a receive worker to the host thread. */
export type FromWorker =
  | { type: 'ticket'; sid: number; id: number }
  | { type: 'started'; sid: number; info: ConnectedInfo; werift: WeriftSpeedupsStatus; applied: string[] }
  | { type: 'startFailed'; sid: number; error: WireError }
  | { type: 'frame'; sid: number; frame: Omit<EncodedFrame, 'data'> & { data: Uint8Array } }
  | { type: 'event'; sid: number; event: keyof SessionEvents; arg: Record<string, unknown> }
  /** The session is closed and forgotten by the worker: nothing more comes for this sid. */
  | { type: 'gone'; sid: number };
