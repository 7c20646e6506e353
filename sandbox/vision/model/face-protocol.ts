/*
 * The messages between the face model (face-model.ts, on the sandbox's event loop) and its worker
 * thread (face-worker.ts), which decodes and runs the networks so that the event loop stays free.
 */
import type { FoundFace } from './face-model';

/** Main thread → worker. `bytes` is a copy the worker owns (transferred). */
export type ModelRequest = { id: number; type: 'load' } | { id: number; type: 'analyze'; bytes: ArrayBuffer };

/** Worker → main thread. A descriptor's buffer is transferred. */
export type ModelReply =
  | { id: number; ok: true; loaded: true }
  | { id: number; ok: true; width: number; height: number; faces: FoundFace[]; bestDescriptor?: Float32Array }
  /** `unreadable`: the bytes did not decode (the caller's fault); `failed`: the model itself failed. */
  | { id: number; ok: false; kind: 'unreadable' | 'failed'; message: string };
