import { sleep } from '../http/sleep';
import { VIDEO_CLOCK } from '../frames/types';

/**
 * Waits until each frame's time comes, counted from the first frame it is given: a stream read faster
 * than it plays (a file) goes out in real time. The returned function is awaited with each frame's
 * timestamp (VIDEO_CLOCK ticks); a signal ends a wait early.
 */
export function framePacer(): (timestamp: number, signal?: AbortSignal) => Promise<void> {
  let start: { wall: number; timestamp: number } | undefined;
  return async (timestamp, signal) => {
    start ??= { wall: performance.now(), timestamp };
    const wait = start.wall + ((timestamp - start.timestamp) * 1000) / VIDEO_CLOCK - performance.now();
    if (wait > 1) await sleep(wait, signal);
  };
}
