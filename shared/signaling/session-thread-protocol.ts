import type { EncodedFrame } from '../frames/types';
import type { Ticket } from '../streaming/types';
import type { ConnectedInfo, SessionEvents } from './session';
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

/** Messages from the host thread to a session thread. */
export type ToWorker =
  | { type: 'start' }
  | { type: 'close' }
  | { type: 'keyframe'; streamId?: string }
  | { type: 'ticket'; id: number; ticket?: Ticket; error?: WireError };

/** Messages from a session thread to the host thread. */
export type FromWorker =
  | { type: 'ticket'; id: number }
  | { type: 'started'; info: ConnectedInfo; werift: WeriftSpeedupsStatus }
  | { type: 'startFailed'; error: WireError }
  | { type: 'frame'; frame: Omit<EncodedFrame, 'data'> & { data: Uint8Array } }
  | { type: 'event'; event: keyof SessionEvents; arg: Record<string, unknown> };
